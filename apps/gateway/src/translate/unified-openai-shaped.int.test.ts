// Acceptance of the unified API for the providers that speak OpenAI's shape themselves (Azure OpenAI,
// Mistral, Groq, any OpenAI-compatible host): the official OpenAI SDK's chat.completions.create
// (plain, tools, JSON schema, image, stream) and embeddings.create work unchanged through the
// gateway, which passes the request through as the client wrote it (docs/unified-api.md, "The rule").
import { test } from '@aigw/testkit';
import type OpenAI from 'openai';
import { afterAll, describe, expect } from 'vitest';
import { eventFor, type Harness, startHarness } from '../../test/harness.js';
import { lastSentJson, openaiClient } from './unified.test-support.js';

let h: Harness;

afterAll(async () => {
  await h?.close();
});

interface OpenAiShaped {
  readonly name: string;
  readonly headers: Record<string, string>;
  /** Where the mock records the chat call (Azure: the deployment's path). */
  readonly chatPath: string;
  readonly embeddingsPath: string;
  /** The gateway adds `stream_options.include_usage` for it (pipeline/stream-usage.ts). */
  readonly asksUsage: boolean;
}

const NAMES = ['azure-openai', 'mistral-ai', 'groq', 'openai-compatible'] as const;

function provider(name: (typeof NAMES)[number]): OpenAiShaped {
  const bearer = (name: string, asksUsage: boolean): OpenAiShaped => ({
    name,
    headers: { 'x-service-provider': name, 'x-service-custom-host': `${h.mock.url}/v1` },
    chatPath: '/v1/chat/completions',
    embeddingsPath: '/v1/embeddings',
    asksUsage,
  });
  if (name !== 'azure-openai') return bearer(name, name === 'groq');
  return {
    name: 'azure-openai',
    headers: {
      'x-service-provider': 'azure-openai',
      'x-service-custom-host': h.mock.url,
      'x-service-cloudA-resource-name': 'my-resource',
      'x-service-cloudA-deployment-id': 'gpt4o-prod',
      'x-service-cloudA-api-version': '2024-10-21',
    },
    chatPath: '/openai/deployments/gpt4o-prod/chat/completions',
    embeddingsPath: '/openai/deployments/gpt4o-prod/embeddings',
    asksUsage: true,
  };
}

const TOOLS: OpenAI.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
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

describe('unified API: the OpenAI SDK against providers that speak OpenAI themselves', () => {
  test('set up', async ({ nats }) => {
    h = await startHarness(nats);
    expect(h.mock.url).toMatch(/^http:/);
  });

  for (const label of NAMES) {
    const p = () => provider(label);

    test(`${label}: plain, sent as written; usage in the request event`, async () => {
      const request: OpenAI.ChatCompletionCreateParamsNonStreaming = {
        model: 'gpt-4o-mini',
        messages: [
          { role: 'developer', content: 'be brief' },
          { role: 'user', content: 'hello through the gateway' },
        ],
        max_completion_tokens: 100,
        temperature: 0.5,
        stop: ['never'],
      };
      const raw = await openaiClient(h, p().headers).chat.completions.create(request).withResponse();
      expect(raw.data.choices[0]?.message.content).toBe('hello through the gateway');
      expect(raw.data.choices[0]?.finish_reason).toBe('stop');
      expect(h.mock.requests.at(-1)?.path).toBe(p().chatPath);
      expect(lastSentJson(h)).toEqual(request);
      const event = await eventFor(h, raw.response.headers.get('x-service-trace-id') ?? '');
      expect(event.provider?.type).toBe(p().name);
      expect(event.tokens).toMatchObject({
        inputTokens: raw.data.usage?.prompt_tokens,
        outputTokens: raw.data.usage?.completion_tokens,
        estimated: false,
      });
    });

    test(`${label}: parallel tool calls, then the tool results`, async () => {
      const client = openaiClient(h, p().headers);
      const question: OpenAI.ChatCompletionMessageParam = { role: 'user', content: 'weather and time' };
      const first = await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [question],
        tools: TOOLS,
        tool_choice: 'auto',
      });
      const message = first.choices[0]?.message;
      expect(first.choices[0]?.finish_reason).toBe('tool_calls');
      const calls = (message?.tool_calls ?? []).filter(
        (c): c is OpenAI.ChatCompletionMessageFunctionToolCall => c.type === 'function',
      );
      expect(calls.map((c) => c.function.name)).toEqual(['get_weather', 'get_time']);
      expect(lastSentJson(h)).toMatchObject({ tools: TOOLS, tool_choice: 'auto' });
      const answer = await client.chat.completions.create({
        model: 'gpt-4o-mini',
        tools: TOOLS,
        messages: [
          question,
          message as OpenAI.ChatCompletionMessageParam,
          ...calls.map((c) => ({ role: 'tool' as const, tool_call_id: c.id, content: '{"ok":true}' })),
        ],
      });
      expect(answer.choices[0]?.finish_reason).toBe('stop');
      expect(answer.choices[0]?.message.tool_calls ?? []).toEqual([]);
    });

    test(`${label}: response_format json_schema reaches the provider and answers JSON text`, async () => {
      const response_format: OpenAI.ResponseFormatJSONSchema = {
        type: 'json_schema',
        json_schema: { name: 'echo', schema: { type: 'object', properties: { input: { type: 'string' } } } },
      };
      const completion = await openaiClient(h, p().headers).chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'as json' }],
        response_format,
      });
      expect(lastSentJson(h).response_format).toEqual(response_format);
      expect(JSON.parse(completion.choices[0]?.message.content ?? '')).toEqual({ input: 'as json' });
    });

    test(`${label}: image parts (base64 and URL) reach the provider as written`, async () => {
      const content: OpenAI.ChatCompletionContentPart[] = [
        { type: 'text', text: 'what are these' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        { type: 'image_url', image_url: { url: 'https://example.com/cat.png', detail: 'low' } },
      ];
      const completion = await openaiClient(h, p().headers).chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content }],
      });
      expect(completion.choices[0]?.message.content).toBe('what are these');
      expect((lastSentJson(h).messages as Array<{ content: unknown }>)[0]?.content).toEqual(content);
    });

    test(`${label}: a stream as the SDK sends it by default (no include_usage), logged with tokens`, async () => {
      const raw = await openaiClient(h, p().headers)
        .chat.completions.create({
          model: 'gpt-4o-mini',
          messages: [{ role: 'user', content: 'stream these words please' }],
          stream: true,
        })
        .withResponse();
      let text = '';
      const chunks: OpenAI.ChatCompletionChunk[] = [];
      for await (const chunk of raw.data) {
        chunks.push(chunk);
        text += chunk.choices[0]?.delta.content ?? '';
      }
      expect(text).toBe('stream these words please');
      // The client did not ask for usage: it gets no usage-only chunk, whoever asked the provider.
      expect(chunks.every((c) => c.choices.length === 1 && !c.usage)).toBe(true);
      expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
      expect(h.mock.requests.at(-1)?.json).toMatchObject(
        p().asksUsage ? { stream_options: { include_usage: true } } : { stream: true },
      );
      const event = await eventFor(h, raw.response.headers.get('x-service-trace-id') ?? '');
      expect(event.isStream).toBe(true);
      // Asked for: the provider's counts; not asked (it may refuse the field): the tokenizer's, marked.
      if (p().asksUsage) expect(event.tokens).toMatchObject({ outputTokens: 4, estimated: false });
      else {
        expect(event.tokens?.estimated).toBe(true);
        expect(event.tokens?.outputTokens).toBeGreaterThan(0);
      }
    });

    test(`${label}: embeddings.create`, async () => {
      const embedding = await openaiClient(h, p().headers).embeddings.create({
        model: 'text-embedding-3-small',
        input: ['first text', 'second text'],
        dimensions: 8,
      });
      expect(embedding.data.map((d) => [d.index, d.embedding.length])).toEqual([
        [0, 8],
        [1, 8],
      ]);
      expect(embedding.usage.prompt_tokens).toBeGreaterThan(0);
      expect(h.mock.requests.at(-1)?.path).toBe(p().embeddingsPath);
    });
  }
});
