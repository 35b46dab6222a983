// Acceptance of the unified API: the official OpenAI SDK, unchanged, against providers whose native
// API is not OpenAI's, each simulated by the mock in its own shape; the request event says who served.
import { DEFAULT_AWS_CREDENTIALS } from '@aigw/mock-provider';
import { test } from '@aigw/testkit';
import OpenAI from 'openai';
import { afterAll, describe, expect } from 'vitest';
import { eventFor, type Harness, startHarness } from '../../test/harness.js';

let h: Harness;

afterAll(async () => {
  await h?.close();
});

const bedrockHeaders = {
  'x-service-provider': 'bedrock',
  'x-service-cloudC-access-key-id': DEFAULT_AWS_CREDENTIALS.accessKeyId,
  'x-service-cloudC-secret-access-key': DEFAULT_AWS_CREDENTIALS.secretAccessKey,
  'x-service-cloudC-region': 'us-east-1',
  ...(DEFAULT_AWS_CREDENTIALS.sessionToken
    ? { 'x-service-cloudC-session-token': DEFAULT_AWS_CREDENTIALS.sessionToken }
    : {}),
};

/** Each provider as the client names it, and the model it asks for. */
function targets() {
  return {
    anthropic: {
      headers: { 'x-service-provider': 'anthropic', 'x-service-custom-host': `${h.mock.url}/v1` },
      model: 'claude-3-5-haiku-latest',
      path: '/v1/messages',
    },
    bedrock: {
      headers: { ...bedrockHeaders, 'x-service-custom-host': h.mock.url },
      model: 'anthropic.claude-3-haiku-20240307-v1:0',
      path: '/model/anthropic.claude-3-haiku-20240307-v1:0/converse',
    },
    'vertex-gemini': {
      headers: {
        'x-service-provider': 'vertex-ai',
        'x-service-custom-host': h.mock.url,
        'x-service-cloudB-project-id': 'my-project',
        'x-service-cloudB-region': 'us-central1',
      },
      model: 'gemini-2.0-flash',
      path: '/v1/projects/my-project/locations/us-central1/publishers/google/models/gemini-2.0-flash:generateContent',
    },
    'vertex-anthropic': {
      headers: {
        'x-service-provider': 'vertex-ai',
        'x-service-custom-host': h.mock.url,
        'x-service-cloudB-project-id': 'my-project',
        'x-service-cloudB-region': 'us-east5',
      },
      model: 'claude-3-5-sonnet@20240620',
      path: '/v1/projects/my-project/locations/us-east5/publishers/anthropic/models/claude-3-5-sonnet@20240620:rawPredict',
    },
  } as const;
}

function client(headers: Record<string, string>): OpenAI {
  return new OpenAI({ baseURL: `${h.base}/v1`, apiKey: 'provider-token', defaultHeaders: headers, maxRetries: 0 });
}

describe('unified API: OpenAI chat completions to every provider', () => {
  test('set up', async ({ nats }) => {
    h = await startHarness(nats);
    expect(h.mock.url).toMatch(/^http:/);
  });

  for (const name of ['anthropic', 'bedrock', 'vertex-gemini', 'vertex-anthropic'] as const) {
    test(`${name}: plain`, async () => {
      const t = targets()[name];
      const raw = await client(t.headers)
        .chat.completions.create({
          model: t.model,
          messages: [
            { role: 'system', content: 'be brief' },
            { role: 'user', content: 'hello from the unified api' },
          ],
          max_tokens: 100,
        })
        .withResponse();
      const completion = raw.data;
      expect(completion.object).toBe('chat.completion');
      expect(completion.choices[0]?.message.content).toBe('hello from the unified api');
      expect(completion.choices[0]?.finish_reason).toBe('stop');
      expect(completion.usage?.prompt_tokens).toBeGreaterThan(0);
      expect(completion.usage?.completion_tokens).toBeGreaterThan(0);
      expect(h.mock.requests.at(-1)?.path).toBe(t.path);
      const event = await eventFor(h, raw.response.headers.get('x-service-trace-id') ?? '');
      expect(event.tokens).toMatchObject({
        inputTokens: completion.usage?.prompt_tokens,
        outputTokens: completion.usage?.completion_tokens,
        estimated: false,
      });
      expect(event.provider?.type).toBe(t.headers['x-service-provider']);
    });

    test(`${name}: streaming, usage in the last chunk`, async () => {
      const t = targets()[name];
      const stream = await client(t.headers).chat.completions.create({
        model: t.model,
        messages: [{ role: 'user', content: 'stream these words please' }],
        max_tokens: 100,
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = '';
      let usage: number | undefined;
      let finish: string | null | undefined;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
        if (chunk.usage) usage = chunk.usage.total_tokens;
      }
      expect(text).toBe('stream these words please');
      expect(finish).toBe('stop');
      expect(usage).toBeGreaterThan(0);
    });
  }
});
