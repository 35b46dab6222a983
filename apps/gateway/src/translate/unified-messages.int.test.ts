// Anthropic's Messages API in front of other providers: the official Anthropic SDK, unchanged,
// against OpenAI (the mock answering in OpenAI's shape) and Bedrock (Converse), plain, tools and
// streams; the request event prices what the provider that served reported.

import { test } from '@aigw/testkit';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, describe, expect } from 'vitest';
import { eventFor, type Harness, startHarness } from '../../test/harness.js';
import { bedrockCredentials, lastSentJson } from './unified.test-support.js';

let h: Harness;

afterAll(async () => {
  await h?.close();
});

function targets() {
  return {
    openai: {
      headers: { 'x-service-provider': 'openai', 'x-service-custom-host': `${h.mock.url}/v1` },
      model: 'gpt-4o-mini',
      path: '/v1/chat/completions',
    },
    bedrock: {
      headers: {
        'x-service-provider': 'bedrock',
        'x-service-custom-host': h.mock.url,
        ...bedrockCredentials,
      },
      model: 'anthropic.claude-3-haiku-20240307-v1:0',
      path: '/model/anthropic.claude-3-haiku-20240307-v1:0/converse',
    },
  } as const;
}

/** The provider key as a bearer token (`authToken`), as Claude Code's ANTHROPIC_AUTH_TOKEN sends it. */
function client(headers: Record<string, string>): Anthropic {
  return new Anthropic({
    baseURL: h.base,
    authToken: 'provider-key',
    apiKey: null,
    defaultHeaders: headers,
    maxRetries: 0,
  });
}

const TOOL: Anthropic.Tool = {
  name: 'get_weather',
  description: 'weather of a city',
  input_schema: { type: 'object', properties: { input: { type: 'string' } } },
};

describe('unified API: Anthropic Messages to other providers', () => {
  test('set up', async ({ nats }) => {
    h = await startHarness(nats);
    expect(h.mock.url).toMatch(/^http:/);
  });

  for (const name of ['openai', 'bedrock'] as const) {
    test(`${name}: plain, with a system prompt`, async () => {
      const t = targets()[name];
      const raw = await client(t.headers)
        .messages.create({
          model: t.model,
          max_tokens: 100,
          system: 'be brief',
          messages: [{ role: 'user', content: 'hello from claude code' }],
        })
        .withResponse();
      const message = raw.data;
      expect(message.type).toBe('message');
      expect(message.content).toEqual([{ type: 'text', text: 'hello from claude code' }]);
      expect(message.stop_reason).toBe('end_turn');
      expect(message.usage.input_tokens).toBeGreaterThan(0);
      expect(message.usage.output_tokens).toBe(4);
      expect(h.mock.requests.at(-1)?.path).toBe(t.path);
      const event = await eventFor(h, raw.response.headers.get('x-service-trace-id') ?? '');
      expect(event.provider?.type).toBe(name);
      expect(event.tokens).toMatchObject({ outputTokens: 4, estimated: false });
    });

    test(`${name}: tools, then the tool result`, async () => {
      const t = targets()[name];
      const ask: Anthropic.MessageParam = { role: 'user', content: 'weather in Paris' };
      const first = await client(t.headers).messages.create({
        model: t.model,
        max_tokens: 100,
        tools: [TOOL],
        messages: [ask],
      });
      expect(first.stop_reason).toBe('tool_use');
      const use = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
      expect(use).toMatchObject({ name: 'get_weather', input: { input: 'weather in Paris' } });
      const second = await client(t.headers).messages.create({
        model: t.model,
        max_tokens: 100,
        tools: [TOOL],
        messages: [
          ask,
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: use?.id ?? '', content: 'sunny' }] },
        ],
      });
      expect(second.stop_reason).toBe('end_turn');
      expect(second.content.every((b) => b.type === 'text')).toBe(true);
    });

    test(`${name}: streaming, assembled by the SDK's stream helper`, async () => {
      const t = targets()[name];
      const stream = client(t.headers).messages.stream({
        model: t.model,
        max_tokens: 100,
        messages: [{ role: 'user', content: 'stream these words please' }],
      });
      const texts: string[] = [];
      stream.on('text', (text) => texts.push(text));
      const message = await stream.finalMessage();
      expect(texts.join('')).toBe('stream these words please');
      expect(texts.length).toBeGreaterThan(1);
      expect(message.content).toEqual([{ type: 'text', text: 'stream these words please' }]);
      expect(message.stop_reason).toBe('end_turn');
      expect(message.usage.output_tokens).toBe(4);
    });

    test(`${name}: a streamed tool call`, async () => {
      const t = targets()[name];
      const message = await client(t.headers)
        .messages.stream({
          model: t.model,
          max_tokens: 100,
          tools: [TOOL],
          tool_choice: { type: 'tool', name: 'get_weather' },
          messages: [{ role: 'user', content: 'and in Rome' }],
        })
        .finalMessage();
      expect(message.stop_reason).toBe('tool_use');
      expect(message.content).toMatchObject([
        { type: 'tool_use', name: 'get_weather', input: { input: 'and in Rome' } },
      ]);
    });
  }

  test('the request is sent in OpenAI shape to OpenAI, with usage asked for on streams', async () => {
    const t = targets().openai;
    await client(t.headers)
      .messages.stream({ model: t.model, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] })
      .finalMessage();
    expect(lastSentJson(h)).toEqual({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'x' }],
      max_tokens: 10,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  test('a parameter OpenAI cannot take (top_k) is a 400 naming it', async () => {
    const t = targets().openai;
    const refused = await client(t.headers)
      .messages.create(
        // Sent as any client may send it (this SDK version has no type for it).
        {
          model: t.model,
          max_tokens: 10,
          top_k: 5,
          messages: [{ role: 'user', content: 'x' }],
        } as Anthropic.MessageCreateParamsNonStreaming,
      )
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    expect(JSON.stringify((refused as InstanceType<typeof Anthropic.BadRequestError>).error)).toContain(
      'top_k',
    );
  });

  test("a provider error comes back in Anthropic's error shape with the provider's status", async () => {
    const t = targets().openai;
    const failed = await client({ ...t.headers, 'x-mock-status': '429' })
      .messages.create({ model: t.model, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] })
      .catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(Anthropic.RateLimitError);
    expect((failed as InstanceType<typeof Anthropic.RateLimitError>).error).toMatchObject({
      type: 'error',
      error: { type: 'rate_limit_error' },
    });
  });
});
