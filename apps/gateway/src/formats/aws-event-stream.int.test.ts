// Bedrock's streams as the mock provider sends them (real AWS event-stream framing with CRCs): usage
// read from the whole body and from any tail that still holds the messages carrying it.
import {
  createMockProvider,
  DEFAULT_AWS_CREDENTIALS,
  decodeEventMessages,
  type MockProvider,
  signAwsRequest,
} from '@aigw/mock-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readResponseFacts } from '../upstream/usage.js';
import { awsEventStreamFacts, eventStreamPayloads } from './index.js';

let mock: MockProvider;
beforeAll(async () => {
  mock = await createMockProvider();
});
afterAll(async () => {
  await mock.close();
});

const MODEL = 'anthropic.claude-3-5-sonnet-20240620-v1%3A0';
const messages = [{ role: 'user', content: [{ text: 'how many tokens does this question take' }] }];

async function post(path: string, body: unknown): Promise<Response> {
  const url = `${mock.url}${path}`;
  const payload = JSON.stringify(body);
  const headers = signAwsRequest({
    method: 'POST',
    url,
    body: payload,
    region: 'us-east-1',
    credentials: DEFAULT_AWS_CREDENTIALS,
    headers: { 'content-type': 'application/json' },
  });
  const res = await fetch(url, { method: 'POST', headers, body: payload });
  expect(res.status).toBe(200);
  return res;
}

/** Byte offset where the last `count` messages of a whole stream begin (from each prelude). */
function startOfLast(bytes: Buffer, count: number): number {
  const starts: number[] = [];
  for (let at = 0; at < bytes.length; at += bytes.readUInt32BE(at)) starts.push(at);
  expect(starts).toHaveLength(decodeEventMessages(bytes).length);
  return starts[starts.length - count] as number;
}

describe('Bedrock AWS event streams', () => {
  it('ConverseStream: usage of the metadata event, from the body and from any tail holding it', async () => {
    const json = (await (await post(`/model/${MODEL}/converse`, { messages })).json()) as {
      usage: { inputTokens: number; outputTokens: number; totalTokens: number };
    };
    const res = await post(`/model/${MODEL}/converse-stream`, { messages });
    expect(res.headers.get('content-type')).toMatch(/^application\/vnd\.amazon\.eventstream/);
    const bytes = Buffer.from(await res.arrayBuffer());
    const expected = {
      inputTokens: json.usage.inputTokens,
      outputTokens: json.usage.outputTokens,
      totalTokens: json.usage.totalTokens,
      cachedInputTokens: 0,
      estimated: false,
    };
    expect(json.usage.inputTokens).toBeGreaterThan(0);
    expect(readResponseFacts('application/vnd.amazon.eventstream', undefined, bytes, 'POST')).toEqual({
      usage: expected,
      model: undefined,
    });
    const metadataAt = startOfLast(bytes, 1);
    for (let i = 0; i < bytes.length; i++) {
      const usage = awsEventStreamFacts(bytes.subarray(i)).usage;
      expect(usage, `tail from ${i}`).toEqual(i <= metadataAt ? expected : undefined);
    }
    expect(eventStreamPayloads(bytes).map((e) => Object.keys(e)[0])).toContain('contentBlockIndex');
  });

  it('InvokeModelWithResponseStream: the Claude events inside `bytes` and the invocation metrics', async () => {
    const body = {
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'count me in please' }],
    };
    const json = (await (await post(`/model/${MODEL}/invoke`, body)).json()) as {
      usage: { input_tokens: number; output_tokens: number };
    };
    const bytes = Buffer.from(
      await (await post(`/model/${MODEL}/invoke-with-response-stream`, body)).arrayBuffer(),
    );
    const facts = readResponseFacts('application/vnd.amazon.eventstream', undefined, bytes, 'POST');
    expect(facts).toEqual({
      model: expect.stringContaining('claude'),
      usage: {
        inputTokens: json.usage.input_tokens,
        outputTokens: json.usage.output_tokens,
        totalTokens: json.usage.input_tokens + json.usage.output_tokens,
        cachedInputTokens: 0,
        estimated: false,
      },
    });
    // Only the last message (message_stop with the metrics) left: the metrics still give the usage.
    const last = bytes.subarray(startOfLast(bytes, 1));
    expect(awsEventStreamFacts(last).usage).toEqual(facts.usage);
  });
});
