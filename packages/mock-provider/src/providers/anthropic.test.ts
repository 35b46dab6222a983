import { describe, expect, it } from 'vitest';
import { ANTHROPIC_AUTH, json, parseSse, postJson, useMock } from '../../test/helpers.js';
import { createMockProvider } from '../server.js';

const mock = useMock();
const messages = (body: unknown, headers: Record<string, string> = ANTHROPIC_AUTH) =>
  postJson(`${mock().url}/v1/messages`, body, headers);
const request = {
  model: 'claude-sonnet-4',
  max_tokens: 100,
  system: [{ type: 'text', text: 'system words here' }],
  messages: [{ role: 'user', content: 'hello claude friend' }],
};

describe('POST /v1/messages', () => {
  it('answers a Messages object echoing the last user turn with usage', async () => {
    const res = await messages(request);
    expect(res.status).toBe(200);
    expect(res.headers.get('request-id')).toBe(res.headers.get('x-request-id'));
    const body = await json(res);
    expect(body).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4',
      content: [{ type: 'text', text: 'hello claude friend' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 6, output_tokens: 3 },
    });
    expect(body.id).toMatch(/^msg_/);
  });

  it('stops at max_tokens', async () => {
    const body = await json(await messages({ ...request, max_tokens: 1 }));
    expect(body).toMatchObject({
      content: [{ text: 'hello' }],
      stop_reason: 'max_tokens',
      usage: { output_tokens: 1 },
    });
  });

  it('streams the Messages event sequence with named SSE events', async () => {
    const res = await messages({ ...request, stream: true });
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events = parseSse(await res.text());
    expect(events.map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const data = events.map((e) => JSON.parse(e.data));
    expect(data.every((d, i) => d.type === events[i]!.event)).toBe(true);
    expect(data[0].message).toMatchObject({ role: 'assistant', content: [], usage: { input_tokens: 6 } });
    expect(
      data
        .filter((d) => d.type === 'content_block_delta')
        .map((d) => d.delta.text)
        .join(''),
    ).toBe('hello claude friend');
    expect(data[7]).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 3 },
    });
  });

  it('answers auth and version failures in Anthropic shape', async () => {
    const noKey = await messages(request, { 'anthropic-version': '2023-06-01' });
    expect(noKey.status).toBe(401);
    expect(await json(noKey)).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: 'x-api-key header is required' },
    });
    const bearerOnly = await messages(request, {
      authorization: 'Bearer sk-ant',
      'anthropic-version': '2023-06-01',
    });
    expect(bearerOnly.status).toBe(401);
    const noVersion = await messages(request, { 'x-api-key': 'k' });
    expect(noVersion.status).toBe(400);
    expect((await json(noVersion)).error).toEqual({
      type: 'invalid_request_error',
      message: 'anthropic-version: header is required',
    });
    const strict = await createMockProvider({ apiKeys: { anthropic: ['good'] } });
    try {
      const bad = await postJson(`${strict.url}/v1/messages`, request, {
        'x-api-key': 'bad',
        'anthropic-version': '2023-06-01',
      });
      expect((await json(bad)).error).toEqual({ type: 'authentication_error', message: 'invalid x-api-key' });
    } finally {
      await strict.close();
    }
  });

  it('validates required fields with invalid_request_error', async () => {
    const { max_tokens: _, ...noMax } = request;
    const res = await messages(noMax);
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'max_tokens: Field required' },
    });
  });

  it('counts tokens', async () => {
    const res = await postJson(`${mock().url}/v1/messages/count_tokens`, request, ANTHROPIC_AUTH);
    expect(await json(res)).toEqual({ input_tokens: 6 });
  });
});
