import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { useMock } from '../test/helpers.js';

const mock = useMock();
const wsUrl = (path = '/v1/realtime?model=gpt-4o-realtime-preview') =>
  `${mock().url.replace('http', 'ws')}${path}`;

/** Collects messages from the moment the socket is created, so none is missed before a listener exists. */
function connect(url: string, options: WebSocket.ClientOptions = {}, protocols?: string[]) {
  const ws = new WebSocket(url, protocols, options);
  const received: Array<{ data: Buffer; isBinary: boolean }> = [];
  const waiters: Array<() => void> = [];
  ws.on('message', (data: Buffer, isBinary) => {
    received.push({ data, isBinary });
    for (const wake of waiters.splice(0)) wake();
  });
  const next = async (count: number) => {
    while (received.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
    return received.slice(0, count);
  };
  return { ws, next };
}

function rejection(
  url: string,
  options: WebSocket.ClientOptions = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, options);
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => {
        body += c.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.on('open', () => reject(new Error('upgrade unexpectedly accepted')));
    ws.on('error', () => undefined);
  });
}

describe('realtime WebSocket', () => {
  it('answers response.create with a turn that ends in response.done and its usage', async () => {
    const { ws, next } = connect(wsUrl(), { headers: { authorization: 'Bearer sk-rt' } });
    await once(ws, 'open');
    ws.send(JSON.stringify({ type: 'response.create', response: { instructions: 'two words' } }));
    const events = (await next(5)).map((m) => JSON.parse(m.data.toString()) as { type: string });
    expect(events.map((e) => e.type)).toEqual([
      'session.created',
      'response.created',
      'response.text.delta',
      'response.text.done',
      'response.done',
    ]);
    expect(events[2]).toMatchObject({ delta: 'two words' });
    expect(events[4]).toMatchObject({
      response: { status: 'completed', usage: { input_tokens: 7, output_tokens: 2, total_tokens: 9 } },
    });
    ws.close();
    await once(ws, 'close');
  });

  it('sends session.created first, then echoes text and binary messages', async () => {
    const { ws, next } = connect(wsUrl(), {
      headers: { authorization: 'Bearer sk-rt', 'openai-beta': 'realtime=v1' },
    });
    await once(ws, 'open');
    const [first] = await next(1);
    const created = JSON.parse(first!.data.toString());
    expect(created).toMatchObject({
      type: 'session.created',
      session: { object: 'realtime.session', model: 'gpt-4o-realtime-preview' },
    });
    ws.send(JSON.stringify({ type: 'conversation.item.create' }));
    ws.send(Buffer.from([1, 2, 3]));
    const [, text, binary] = await next(3);
    expect(text).toMatchObject({ isBinary: false });
    expect(JSON.parse(text!.data.toString())).toEqual({ type: 'conversation.item.create' });
    expect(binary!.isBinary).toBe(true);
    expect([...binary!.data]).toEqual([1, 2, 3]);
    ws.close();
    await once(ws, 'close');
    const recorded = mock().requests[0];
    expect(recorded).toMatchObject({
      upgrade: true,
      provider: 'openai',
      path: '/v1/realtime',
      params: { model: 'gpt-4o-realtime-preview' },
    });
    expect(recorded?.headers['openai-beta']).toBe('realtime=v1');
    expect(recorded?.headers.authorization).toBe('Bearer sk-rt');
  });

  it('accepts the key as an openai-insecure-api-key subprotocol', async () => {
    const { ws, next } = connect(wsUrl(), {}, [
      'realtime',
      'openai-insecure-api-key.sk-browser',
      'openai-beta.realtime-v1',
    ]);
    await once(ws, 'open');
    expect(ws.protocol).toBe('realtime');
    expect(JSON.parse((await next(1))[0]!.data.toString()).type).toBe('session.created');
    ws.close();
    await once(ws, 'close');
  });

  it('refuses the upgrade without a key, without a model, on other paths, and under the status knob', async () => {
    const noKey = await rejection(wsUrl());
    expect(noKey.status).toBe(401);
    expect(JSON.parse(noKey.body).error.type).toBe('invalid_request_error');
    const auth = { headers: { authorization: 'Bearer k' } };
    expect((await rejection(wsUrl('/v1/realtime'), auth)).status).toBe(400);
    expect((await rejection(wsUrl('/v1/elsewhere?model=m'), auth)).status).toBe(404);
    const failing = await rejection(wsUrl(), {
      headers: { authorization: 'Bearer k', 'x-mock-status': '503', 'x-mock-retry-after': '2' },
    });
    expect(failing.status).toBe(503);
    const badKnob = await rejection(wsUrl(), {
      headers: { authorization: 'Bearer k', 'x-mock-latency-ms': 'soon' },
    });
    expect(badKnob.status).toBe(400);
    expect(JSON.parse(badKnob.body).error.message).toMatch(/latencyMs/);
    expect(mock().requests.map((r) => r.upgrade)).toEqual([true, true, true, true, true]);
    expect(mock().requests.map((r) => r.provider)).toEqual(['openai', 'openai', 'mock', 'openai', 'openai']);
  });

  it('fails the first upgrades under failFirst, then accepts', async () => {
    const headers = { authorization: 'Bearer k', 'x-mock-fail-first': '1', 'x-mock-scenario': 'rt' };
    expect((await rejection(wsUrl(), { headers })).status).toBe(500);
    const { ws, next } = connect(wsUrl(), { headers });
    await once(ws, 'open');
    await next(1);
    ws.close();
    await once(ws, 'close');
  });
});
