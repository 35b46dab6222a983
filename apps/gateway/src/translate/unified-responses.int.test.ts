// OpenAI's Responses API in front of providers that lack it: the official OpenAI SDK's
// responses.create and responses.stream against Anthropic, Bedrock and an OpenAI-compatible provider
// (chat completions only), text and function calls; `/responses` to OpenAI itself passes through.
import { test } from '@aigw/testkit';
import type OpenAI from 'openai';
import type { BadRequestError } from 'openai';
import { afterAll, describe, expect } from 'vitest';
import { eventFor, type Harness, startHarness } from '../../test/harness.js';
import { chatTarget, lastSentJson, openaiClient } from './unified.test-support.js';

let h: Harness;

afterAll(async () => {
  await h?.close();
});

function targets() {
  return {
    anthropic: { ...chatTarget(h, 'anthropic') },
    bedrock: { ...chatTarget(h, 'bedrock') },
    groq: {
      headers: { 'x-service-provider': 'groq', 'x-service-custom-host': `${h.mock.url}/v1` },
      model: 'llama-3.3-70b-versatile',
      path: '/v1/chat/completions',
    },
  };
}

const TOOL: OpenAI.Responses.FunctionTool = {
  type: 'function',
  name: 'get_weather',
  description: 'weather of a city',
  parameters: { type: 'object', properties: { input: { type: 'string' } } },
  strict: false,
};

describe('unified API: OpenAI Responses to providers without it', () => {
  test('set up', async ({ nats }) => {
    h = await startHarness(nats);
    expect(h.mock.url).toMatch(/^http:/);
  });

  for (const name of ['anthropic', 'bedrock', 'groq'] as const) {
    test(`${name}: text, with instructions; usage in the event`, async () => {
      const t = targets()[name];
      const raw = await openaiClient(h, t.headers)
        .responses.create({
          model: t.model,
          instructions: 'be brief',
          input: 'hello responses',
          max_output_tokens: 50,
        })
        .withResponse();
      const response = raw.data;
      expect(response.object).toBe('response');
      expect(response.status).toBe('completed');
      expect(response.output_text).toBe('hello responses');
      expect(response.usage?.output_tokens).toBe(2);
      expect(h.mock.requests.at(-1)?.path).toBe(t.path);
      const event = await eventFor(h, raw.response.headers.get('x-service-trace-id') ?? '');
      expect(event.provider?.type).toBe(name);
      expect(event.tokens).toMatchObject({ outputTokens: 2, estimated: false });
    });

    test(`${name}: a function call, then its output`, async () => {
      const t = targets()[name];
      const client = openaiClient(h, t.headers);
      const first = await client.responses.create({
        model: t.model,
        input: 'weather in Oslo',
        tools: [TOOL],
      });
      const call = first.output.find(
        (o): o is OpenAI.Responses.ResponseFunctionToolCall => o.type === 'function_call',
      );
      expect(call).toMatchObject({ name: 'get_weather' });
      expect(JSON.parse(call?.arguments ?? '')).toEqual({ input: 'weather in Oslo' });
      const second = await client.responses.create({
        model: t.model,
        tools: [TOOL],
        input: [
          { role: 'user', content: 'weather in Oslo' },
          {
            type: 'function_call',
            call_id: call?.call_id ?? '',
            name: 'get_weather',
            arguments: call?.arguments ?? '',
          },
          { type: 'function_call_output', call_id: call?.call_id ?? '', output: 'snow' },
        ],
      });
      expect(second.output.every((o) => o.type === 'message')).toBe(true);
    });

    test(`${name}: streaming text, assembled by the SDK's stream helper`, async () => {
      const t = targets()[name];
      const stream = openaiClient(h, t.headers).responses.stream({
        model: t.model,
        input: 'stream these words please',
      });
      const deltas: string[] = [];
      stream.on('response.output_text.delta', (e) => deltas.push(e.delta));
      const final = await stream.finalResponse();
      expect(deltas.join('')).toBe('stream these words please');
      expect(deltas.length).toBeGreaterThan(1);
      expect(final.output_text).toBe('stream these words please');
      expect(final.usage?.output_tokens).toBe(4);
    });

    test(`${name}: a streamed function call`, async () => {
      const t = targets()[name];
      const final = await openaiClient(h, t.headers)
        .responses.stream({
          model: t.model,
          input: 'time in Lima',
          tools: [TOOL],
          tool_choice: { type: 'function', name: 'get_weather' },
        })
        .finalResponse();
      const call = final.output.find((o) => o.type === 'function_call');
      expect(call?.type === 'function_call' && JSON.parse(call.arguments)).toEqual({ input: 'time in Lima' });
    });
  }

  test('stateful features are refused: previous_response_id is a 400 naming it', async () => {
    const t = targets().anthropic;
    const refused = await openaiClient(h, t.headers)
      .responses.create({ model: t.model, input: 'x', previous_response_id: 'resp_1' })
      .catch((err: unknown) => err);
    expect((refused as BadRequestError).status).toBe(400);
    expect((refused as BadRequestError).param).toBe('previous_response_id');
  });

  test('to OpenAI itself /responses passes through unchanged', async () => {
    const res = await fetch(`${h.base}/v1/responses`, {
      method: 'POST',
      headers: { ...h.openaiHeaders, authorization: 'Bearer k', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', input: 'x' }),
    });
    expect(h.mock.requests.at(-1)?.path).toBe('/v1/responses');
    expect(lastSentJson(h)).toEqual({ model: 'gpt-4o', input: 'x' });
    expect(res.status).toBe(404);
  });
});
