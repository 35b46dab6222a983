import { describe, expect, it } from 'vitest';
import { type Json, json, OPENAI_AUTH, parseSse, postJson, sseData, useMock } from '../../test/helpers.js';
import { createMockProvider } from '../server.js';

const mock = useMock();
const chat = (body: unknown, headers: Record<string, string> = OPENAI_AUTH) =>
  postJson(`${mock().url}/v1/chat/completions`, body, headers);
const messages = [
  { role: 'system', content: 'be brief' },
  { role: 'user', content: 'first question' },
  { role: 'assistant', content: 'an answer' },
  { role: 'user', content: [{ type: 'text', text: 'echo these four words' }] },
];

describe('POST /v1/chat/completions', () => {
  it('echoes the last user message with word-count usage and OpenAI headers', async () => {
    const res = await chat({ model: 'gpt-4o', messages });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    expect(res.headers.get('x-ratelimit-remaining-requests')).toBe('9999');
    const body = await json(res);
    expect(body).toMatchObject({
      object: 'chat.completion',
      model: 'gpt-4o',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'echo these four words' }, finish_reason: 'stop' },
      ],
      usage: { prompt_tokens: 2 + 2 + 2 + 4, completion_tokens: 4, total_tokens: 14 },
    });
    expect(body.id).toMatch(/^chatcmpl-/);
    expect(mock().requests[0]?.json).toEqual({ model: 'gpt-4o', messages });
  });

  it('answers JSON mode (json_object or json_schema) with the echo as a JSON object', async () => {
    for (const response_format of [
      { type: 'json_object' },
      { type: 'json_schema', json_schema: { name: 'echo', schema: { type: 'object' } } },
    ]) {
      const body = await json(await chat({ model: 'gpt-4o', messages, response_format }));
      expect(body.choices[0]).toMatchObject({
        message: { content: '{"input":"echo these four words"}' },
        finish_reason: 'stop',
      });
    }
    const text = await json(await chat({ model: 'gpt-4o', messages, response_format: { type: 'text' } }));
    expect(text.choices[0].message.content).toBe('echo these four words');
  });

  it('honours n and max_tokens', async () => {
    const body = await json(await chat({ model: 'm', n: 3, max_tokens: 2, messages }));
    expect(body.choices).toHaveLength(3);
    for (const [i, choice] of body.choices.entries()) {
      expect(choice).toMatchObject({ index: i, message: { content: 'echo these' }, finish_reason: 'length' });
    }
    expect(body.usage.completion_tokens).toBe(6);
    const alt = await json(await chat({ model: 'm', max_completion_tokens: 1, messages }));
    expect(alt.choices[0].message.content).toBe('echo');
  });

  it('streams chat.completion.chunk events ending in [DONE], without usage unless asked', async () => {
    const res = await chat({
      model: 'gpt-4o',
      stream: true,
      messages: [{ role: 'user', content: 'one two three' }],
    });
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events = sseData(await res.text()) as Json[];
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && !('usage' in c))).toBe(true);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks.map((c) => c.choices[0].delta)).toEqual([
      { role: 'assistant', content: '', refusal: null },
      { content: 'one ' },
      { content: 'two ' },
      { content: 'three' },
      {},
    ]);
    expect(chunks.map((c) => c.choices[0].finish_reason)).toEqual([null, null, null, null, 'stop']);
  });

  it('adds a final usage chunk with empty choices when include_usage is true', async () => {
    const res = await chat({
      model: 'gpt-4o',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'one two three' }],
    });
    const events = sseData(await res.text()) as Json[];
    expect(events.at(-1)).toBe('[DONE]');
    const usageChunk = events.at(-2) as Json;
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 });
    expect(events.slice(0, -2).every((c) => (c as Record<string, unknown>).usage === null)).toBe(true);
  });

  it('frames every event as a single data line followed by a blank line', async () => {
    const text = await (
      await chat({ model: 'm', stream: true, messages: [{ role: 'user', content: 'a b' }] })
    ).text();
    expect(parseSse(text).every((e) => e.event === undefined)).toBe(true);
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('streams n choices interleaved, each with its own index', async () => {
    const events = sseData(
      await (
        await chat({ model: 'm', n: 2, stream: true, messages: [{ role: 'user', content: 'x y' }] })
      ).text(),
    );
    const chunks = events.slice(0, -1) as Json[];
    const contentByIndex = [0, 1].map((i) =>
      chunks
        .filter((c) => c.choices[0].index === i)
        .map((c) => c.choices[0].delta.content ?? '')
        .join(''),
    );
    expect(contentByIndex).toEqual(['x y', 'x y']);
  });

  it('answers auth failures in OpenAI shape', async () => {
    const missing = await chat({ model: 'm', messages }, {});
    expect(missing.status).toBe(401);
    const body = await json(missing);
    expect(body.error).toMatchObject({ type: 'invalid_request_error', param: null, code: null });
    expect(body.error.message).toMatch(/didn't provide an API key/);
    const wrongScheme = await chat({ model: 'm', messages }, { authorization: 'Basic abc' });
    expect(wrongScheme.status).toBe(401);
  });

  it('rejects keys outside the configured list with invalid_api_key', async () => {
    const strict = await createMockProvider({ apiKeys: { openai: ['sk-good'] } });
    try {
      const url = `${strict.url}/v1/chat/completions`;
      const bad = await postJson(url, { model: 'm', messages }, { authorization: 'Bearer sk-bad-key-123' });
      expect(bad.status).toBe(401);
      expect((await json(bad)).error).toMatchObject({
        code: 'invalid_api_key',
        type: 'invalid_request_error',
      });
      expect(
        (await postJson(url, { model: 'm', messages }, { authorization: 'Bearer sk-good' })).status,
      ).toBe(200);
    } finally {
      await strict.close();
    }
  });

  it('answers 400 for invalid JSON and a missing messages or model field', async () => {
    const invalid = await chat('{not json');
    expect(invalid.status).toBe(400);
    expect((await json(invalid)).error.message).toMatch(/could not parse the JSON body/);
    const noMessages = await chat({ model: 'm' });
    expect(noMessages.status).toBe(400);
    expect((await json(noMessages)).error).toMatchObject({
      param: 'messages',
      code: 'missing_required_parameter',
    });
    const noModel = await chat({ messages });
    expect((await json(noModel)).error.param).toBe('model');
    expect((await chat({ model: 'm', messages, n: 0 })).status).toBe(400);
  });
});
