// Cost of one Bedrock request signature (`pnpm --filter @aigw/gateway exec vitest bench --run src/providers`).
import { bench, describe } from 'vitest';
import { signSigV4 } from './sigv4.js';

const url = new URL(
  'https://bedrock-runtime.us-west-2.amazonaws.com/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse',
);
const body = Buffer.from(
  JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'hi '.repeat(300) }] }] }),
);
const credentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};

describe('sigv4', () => {
  bench('sign a 1 KB Bedrock converse request', async () => {
    await signSigV4({
      method: 'POST',
      path: url.pathname,
      query: url.search,
      headers: { host: url.host },
      body,
      region: 'us-west-2',
      service: 'bedrock',
      credentials,
      date: new Date(),
      contentSha256Header: true,
    });
  });
});
