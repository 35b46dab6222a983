// The unified API in configs: each target of a fallback is sent the request in its own provider's
// shape, and the client gets OpenAI's shape whichever target served; the request event names it.
import { createMockProvider, DEFAULT_AWS_CREDENTIALS, type MockProvider } from '@aigw/mock-provider';
import { test } from '@aigw/testkit';
import OpenAI, { type APIError, InternalServerError } from 'openai';
import { afterAll, describe, expect } from 'vitest';
import { eventFor, type Harness, startHarness } from '../../test/harness.js';

let h: Harness;
/** Answers every call with a 503 in the called provider's own error shape. */
let down: MockProvider;

afterAll(async () => {
  await h?.close();
  await down?.close();
});

const openaiTarget = (mock: MockProvider) => ({
  provider: 'openai',
  api_key: 'sk-o',
  custom_host: `${mock.url}/v1`,
});
const anthropicTarget = (mock: MockProvider) => ({
  provider: 'anthropic',
  api_key: 'sk-a',
  custom_host: `${mock.url}/v1`,
  override_params: { model: 'claude-3-5-haiku-latest' },
});
const bedrockTarget = (mock: MockProvider) => ({
  provider: 'bedrock',
  custom_host: mock.url,
  aws_access_key_id: DEFAULT_AWS_CREDENTIALS.accessKeyId,
  aws_secret_access_key: DEFAULT_AWS_CREDENTIALS.secretAccessKey,
  aws_region: 'us-east-1',
  override_params: { model: 'anthropic.claude-3-haiku-20240307-v1:0' },
});

function client(config: unknown): OpenAI {
  return new OpenAI({
    baseURL: `${h.base}/v1`,
    apiKey: 'unused',
    defaultHeaders: { 'x-service-config': JSON.stringify(config) },
    maxRetries: 0,
  });
}

const ask = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'who answers this' }] };

describe('unified API: a fallback across providers of different shapes', () => {
  test('set up', async ({ nats }) => {
    h = await startHarness(nats);
    down = await createMockProvider({ status: 503 });
    expect(down.url).not.toBe(h.mock.url);
  });

  test('OpenAI down, Anthropic serves: OpenAI shape back, the event says Anthropic', async () => {
    const config = {
      strategy: { mode: 'fallback' },
      targets: [openaiTarget(down), anthropicTarget(h.mock), bedrockTarget(h.mock)],
    };
    const raw = await client(config).chat.completions.create(ask).withResponse();
    expect(raw.data.object).toBe('chat.completion');
    expect(raw.data.choices[0]?.message.content).toBe('who answers this');
    expect(raw.data.model).toBe('claude-3-5-haiku-latest');
    expect(raw.response.headers.get('x-service-provider')).toBe('anthropic');
    expect(raw.response.headers.get('x-service-last-used-option-index')).toBe('config.targets[1]');
    expect(h.mock.requests.at(-1)?.path).toBe('/v1/messages');
    const event = await eventFor(h, raw.response.headers.get('x-service-trace-id') ?? '');
    expect(event.provider?.type).toBe('anthropic');
    expect(event.attempts.map((a) => [a.provider?.type, a.statusCode])).toEqual([
      ['openai', 503],
      ['anthropic', 200],
    ]);
    expect(event.tokens).toMatchObject({
      inputTokens: raw.data.usage?.prompt_tokens,
      outputTokens: raw.data.usage?.completion_tokens,
      estimated: false,
    });
  });

  test('OpenAI and Anthropic down, Bedrock serves a stream: OpenAI chunks back, the event says Bedrock', async () => {
    const config = {
      strategy: { mode: 'fallback' },
      targets: [openaiTarget(down), anthropicTarget(down), bedrockTarget(h.mock)],
    };
    const raw = await client(config)
      .chat.completions.create({ ...ask, stream: true, stream_options: { include_usage: true } })
      .withResponse();
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of raw.data) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('who answers this');
    expect(usage?.completion_tokens).toBe(3);
    expect(raw.response.headers.get('x-service-provider')).toBe('bedrock');
    expect(h.mock.requests.at(-1)?.path).toBe(
      '/model/anthropic.claude-3-haiku-20240307-v1:0/converse-stream',
    );
    const event = await eventFor(h, raw.response.headers.get('x-service-trace-id') ?? '');
    expect(event.provider?.type).toBe('bedrock');
    expect(event.attempts.map((a) => [a.provider?.type, a.statusCode])).toEqual([
      ['openai', 503],
      ['anthropic', 503],
      ['bedrock', 200],
    ]);
    expect(event.tokens).toMatchObject({ outputTokens: 3, estimated: false });
  });

  test('OpenAI up: it serves, its bytes pass through untranslated', async () => {
    const config = {
      strategy: { mode: 'fallback' },
      targets: [openaiTarget(h.mock), anthropicTarget(h.mock)],
    };
    const raw = await client(config).chat.completions.create(ask).withResponse();
    expect(raw.response.headers.get('x-service-provider')).toBe('openai');
    expect(raw.data.id).toMatch(/^chatcmpl-/);
    expect(h.mock.requests.at(-1)?.path).toBe('/v1/chat/completions');
  });

  test("every target down: the last answer, Bedrock's error, in the envelope with its status", async () => {
    const config = { strategy: { mode: 'fallback' }, targets: [anthropicTarget(down), bedrockTarget(down)] };
    const failed = await client(config)
      .chat.completions.create(ask)
      .catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(InternalServerError);
    expect((failed as APIError).status).toBe(503);
    expect((failed as APIError).message).toContain('Simulated 503');
  });

  test('a target that cannot take a parameter is passed over (400 unsent), the next serves', async () => {
    const config = {
      strategy: { mode: 'fallback' },
      targets: [bedrockTarget(h.mock), anthropicTarget(h.mock)],
    };
    const raw = await client(config)
      .chat.completions.create({
        ...ask,
        tool_choice: 'none',
        tools: [{ type: 'function', function: { name: 'f' } }],
      })
      .withResponse();
    expect(raw.response.headers.get('x-service-provider')).toBe('anthropic');
    const event = await eventFor(h, raw.response.headers.get('x-service-trace-id') ?? '');
    expect(event.attempts[0]).toMatchObject({ statusCode: 0, error: { code: 'unsupported_parameter' } });
  });
});
