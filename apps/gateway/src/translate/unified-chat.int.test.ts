// Acceptance of the unified API: the official OpenAI SDK, unchanged, against every provider whose
// native API is not OpenAI's, each simulated by the mock in its own shape (plain, tools, JSON schema,
// images, streaming, errors); usage reaches the request event as the provider reported it.
import { test } from '@aigw/testkit';
import type OpenAI from 'openai';
import { BadRequestError, RateLimitError } from 'openai';
import { afterAll, describe, expect } from 'vitest';
import { eventFor, type Harness, startHarness } from '../../test/harness.js';
import { CHAT_TARGETS, chatTarget, lastSentJson, openaiClient } from './unified.test-support.js';

let h: Harness;

afterAll(async () => {
  await h?.close();
});

const TOOLS: OpenAI.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'weather of a city',
      parameters: { type: 'object', properties: { input: { type: 'string' } } },
    },
  },
  {
    type: 'function',
    function: { name: 'get_time', parameters: { type: 'object', properties: { input: { type: 'string' } } } },
  },
];

// A 1x1 PNG.
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** The last turn's parts of a native body, as the mock received it. */
function sentParts(body: Record<string, unknown>): unknown[] {
  const turns = (body.messages ?? body.contents) as Array<Record<string, unknown>>;
  return (turns.at(-1)?.content ?? turns.at(-1)?.parts) as unknown[];
}

/** A base64 PNG in each provider's own image part. */
function nativeImage(name: string): unknown {
  switch (name) {
    case 'anthropic':
    case 'vertex-anthropic':
      return { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } };
    case 'bedrock':
      return { image: { format: 'png', source: { bytes: PNG } } };
    case 'cohere':
      return { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } };
    default:
      return { inlineData: { mimeType: 'image/png', data: PNG } };
  }
}

/** The function tool calls of a message (the SDK's type also has custom tools). */
function functionCalls(calls: OpenAI.ChatCompletionMessageToolCall[] | undefined) {
  return (calls ?? []).filter(
    (c): c is OpenAI.ChatCompletionMessageFunctionToolCall => c.type === 'function',
  );
}

describe('unified API: OpenAI chat completions to every provider', () => {
  test('set up', async ({ nats }) => {
    h = await startHarness(nats);
    expect(h.mock.url).toMatch(/^http:/);
  });

  for (const name of CHAT_TARGETS) {
    test(`${name}: plain, with system and usage in the request event`, async () => {
      const t = chatTarget(h, name);
      const raw = await openaiClient(h, t.headers)
        .chat.completions.create({
          model: t.model,
          messages: [
            { role: 'system', content: 'be brief' },
            { role: 'user', content: 'hello from the unified api' },
          ],
          max_tokens: 100,
          temperature: 0.5,
          top_p: 0.9,
          stop: ['never'],
        })
        .withResponse();
      const completion = raw.data;
      expect(completion.object).toBe('chat.completion');
      expect(completion.choices[0]?.message.content).toBe('hello from the unified api');
      expect(completion.choices[0]?.finish_reason).toBe('stop');
      expect(completion.usage?.prompt_tokens).toBeGreaterThan(0);
      expect(completion.usage?.completion_tokens).toBeGreaterThan(0);
      expect(h.mock.requests.at(-1)?.path).toBe(t.path);
      expect(raw.response.headers.get('x-service-provider')).toBe(t.headers['x-service-provider']);
      const event = await eventFor(h, raw.response.headers.get('x-service-trace-id') ?? '');
      expect(event.tokens).toMatchObject({
        inputTokens: completion.usage?.prompt_tokens,
        outputTokens: completion.usage?.completion_tokens,
        estimated: false,
      });
      expect(event.provider?.type).toBe(t.headers['x-service-provider']);
      expect(event.statusCode).toBe(200);
    });

    test(`${name}: max_tokens cuts the answer: finish_reason length`, async () => {
      const t = chatTarget(h, name);
      const completion = await openaiClient(h, t.headers).chat.completions.create({
        model: t.model,
        messages: [{ role: 'user', content: 'one two three four' }],
        max_completion_tokens: 2,
      });
      expect(completion.choices[0]?.message.content).toBe('one two');
      expect(completion.choices[0]?.finish_reason).toBe('length');
    });

    test(`${name}: streaming, usage in the last chunk, recorded in the event`, async () => {
      const t = chatTarget(h, name);
      const raw = await openaiClient(h, t.headers)
        .chat.completions.create({
          model: t.model,
          messages: [{ role: 'user', content: 'stream these words please' }],
          max_tokens: 100,
          stream: true,
          stream_options: { include_usage: true },
        })
        .withResponse();
      expect(raw.response.headers.get('content-type')).toContain('text/event-stream');
      let text = '';
      let usage: OpenAI.CompletionUsage | undefined;
      let finish: string | null | undefined;
      let chunks = 0;
      for await (const chunk of raw.data) {
        chunks++;
        text += chunk.choices[0]?.delta.content ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
        if (chunk.usage) usage = chunk.usage;
      }
      expect(text).toBe('stream these words please');
      expect(chunks).toBeGreaterThan(3);
      expect(finish).toBe('stop');
      expect(usage?.total_tokens).toBeGreaterThan(0);
      const event = await eventFor(h, raw.response.headers.get('x-service-trace-id') ?? '');
      expect(event.isStream).toBe(true);
      expect(event.tokens).toMatchObject({ outputTokens: usage?.completion_tokens, estimated: false });
    });

    test(`${name}: streaming without include_usage: usage rides on the finish chunk`, async () => {
      const t = chatTarget(h, name);
      const stream = await openaiClient(h, t.headers).chat.completions.create({
        model: t.model,
        messages: [{ role: 'user', content: 'no usage asked' }],
        stream: true,
      });
      const chunks: OpenAI.ChatCompletionChunk[] = [];
      for await (const chunk of stream) chunks.push(chunk);
      expect(chunks.every((c) => c.choices.length === 1)).toBe(true);
      expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
      expect(chunks.at(-1)?.usage?.completion_tokens).toBe(3);
    });

    test(`${name}: parallel tool calls, then the tool results`, async () => {
      const t = chatTarget(h, name);
      const client = openaiClient(h, t.headers);
      const question: OpenAI.ChatCompletionMessageParam = { role: 'user', content: 'weather and time' };
      const completion = await client.chat.completions.create({
        model: t.model,
        messages: [question],
        tools: TOOLS,
      });
      const message = completion.choices[0]?.message;
      expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
      const calls = functionCalls(message?.tool_calls);
      expect(calls.map((c) => c.function.name)).toEqual(['get_weather', 'get_time']);
      for (const call of calls) {
        expect(JSON.parse(call.function.arguments)).toEqual({ input: 'weather and time' });
        expect(call.id).not.toBe('');
      }
      const answer = await client.chat.completions.create({
        model: t.model,
        tools: TOOLS,
        messages: [
          question,
          message as OpenAI.ChatCompletionMessageParam,
          ...(message?.tool_calls ?? []).map((c) => ({
            role: 'tool' as const,
            tool_call_id: c.id,
            content: '{"ok":true}',
          })),
        ],
      });
      expect(answer.choices[0]?.finish_reason).toBe('stop');
      expect(answer.choices[0]?.message.tool_calls ?? []).toEqual([]);
    });

    test(`${name}: a forced tool, streamed, assembled by the SDK's stream helper`, async () => {
      const t = chatTarget(h, name);
      if (name === 'cohere') {
        // Cohere cannot force one named function: refused before anything is sent.
        const refused = await openaiClient(h, t.headers)
          .chat.completions.create({
            model: t.model,
            messages: [{ role: 'user', content: 'x' }],
            tools: TOOLS,
            tool_choice: { type: 'function', function: { name: 'get_time' } },
          })
          .catch((err: unknown) => err);
        expect(refused).toBeInstanceOf(BadRequestError);
        expect((refused as BadRequestError).code).toBe('unsupported_parameter');
        expect((refused as BadRequestError).param).toBe('tool_choice');
        return;
      }
      const runner = openaiClient(h, t.headers).chat.completions.stream({
        model: t.model,
        messages: [{ role: 'user', content: 'what time' }],
        tools: TOOLS,
        tool_choice: { type: 'function', function: { name: 'get_time' } },
      });
      const final = await runner.finalChatCompletion();
      const calls = functionCalls(final.choices[0]?.message.tool_calls);
      expect(calls.map((c) => c.function.name)).toEqual(['get_time']);
      expect(JSON.parse(calls[0]?.function.arguments ?? '')).toEqual({ input: 'what time' });
      expect(final.choices[0]?.finish_reason).toBe('tool_calls');
    });

    test(`${name}: response_format json_schema answers JSON text`, async () => {
      const t = chatTarget(h, name);
      const completion = await openaiClient(h, t.headers).chat.completions.create({
        model: t.model,
        messages: [{ role: 'user', content: 'as json' }],
        response_format: {
          type: 'json_schema',
          json_schema: {
            name: 'echo',
            schema: { type: 'object', properties: { input: { type: 'string' } } },
          },
        },
      });
      expect(JSON.parse(completion.choices[0]?.message.content ?? '')).toEqual({ input: 'as json' });
      expect(completion.choices[0]?.finish_reason).toBe('stop');
    });

    test(`${name}: a base64 image reaches the provider in its own shape`, async () => {
      const t = chatTarget(h, name);
      await openaiClient(h, t.headers).chat.completions.create({
        model: t.model,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'what is this' },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
            ],
          },
        ],
      });
      expect(sentParts(lastSentJson(h))).toContainEqual(nativeImage(name));
    });

    test(`${name}: a provider error comes back in the envelope with the provider's status`, async () => {
      const t = chatTarget(h, name);
      const failed = await openaiClient(h, { ...t.headers, 'x-mock-status': '429' })
        .chat.completions.create({ model: t.model, messages: [{ role: 'user', content: 'x' }] })
        .catch((err: unknown) => err);
      expect(failed).toBeInstanceOf(RateLimitError);
      const error = failed as RateLimitError;
      expect(error.type).toBe('rate_limit_error');
      expect(error.message).toContain('429');
      expect(error.headers?.get('x-service-gateway-error')).toBeNull();
    });
  }

  test('an unsupported parameter is a 400 naming it, and nothing is sent', async () => {
    h.mock.clear();
    const t = chatTarget(h, 'anthropic');
    const refused = await openaiClient(h, t.headers)
      .chat.completions.create({ model: t.model, messages: [{ role: 'user', content: 'x' }], logprobs: true })
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(BadRequestError);
    const error = refused as BadRequestError;
    expect(error.code).toBe('unsupported_parameter');
    expect(error.param).toBe('logprobs');
    expect(error.headers?.get('x-service-gateway-error')).toBe('true');
    expect(h.mock.requests).toEqual([]);
  });

  test('an image URL: sent as a URL to Anthropic, refused for Bedrock (Converse takes bytes only)', async () => {
    const url = 'https://example.com/cat.png';
    const message: OpenAI.ChatCompletionMessageParam = {
      role: 'user',
      content: [
        { type: 'image_url', image_url: { url } },
        { type: 'text', text: 'see' },
      ],
    };
    const anthropic = chatTarget(h, 'anthropic');
    await openaiClient(h, anthropic.headers).chat.completions.create({
      model: anthropic.model,
      messages: [message],
    });
    const sent = lastSentJson(h).messages as Array<{ content: unknown[] }>;
    expect(sent[0]?.content[0]).toEqual({ type: 'image', source: { type: 'url', url } });
    const bedrock = chatTarget(h, 'bedrock');
    const refused = await openaiClient(h, bedrock.headers)
      .chat.completions.create({ model: bedrock.model, messages: [message] })
      .catch((err: unknown) => err);
    expect((refused as BadRequestError).param).toBe('messages[0].content');
  });

  test('the native paths still pass through unchanged: /messages to Anthropic', async () => {
    const t = chatTarget(h, 'anthropic');
    const res = await fetch(`${h.base}/v1/messages`, {
      method: 'POST',
      headers: { ...t.headers, 'content-type': 'application/json', 'x-api-key': 'k' },
      body: JSON.stringify({
        model: t.model,
        max_tokens: 10,
        messages: [{ role: 'user', content: 'native' }],
      }),
    });
    const body = (await res.json()) as { type: string; content: Array<{ text: string }> };
    expect(body.type).toBe('message');
    expect(body.content[0]?.text).toBe('native');
  });
});
