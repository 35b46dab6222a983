import { createServer, type IncomingHttpHeaders, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMockProvider, type MockProvider } from '@aigw/mock-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResponseRecorder } from './recorder.js';
import { replay } from './replay.js';
import type { CachedResponse } from './types.js';

interface Exchange {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** One HTTP exchange, keeping the exact body bytes the client received. */
function send(url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: body === undefined ? 'GET' : 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

async function serve(handler: (res: ServerResponse) => void): Promise<{ url: string; server: Server }> {
  const server = createServer((_req, res) => handler(res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** Calls the mock directly and records its answer the way the gateway would, chunk by chunk. */
function record(mock: MockProvider, body: unknown, headers: Record<string, string> = {}, maxBytes = 1 << 20) {
  return new Promise<{ exchange: Exchange; cached: CachedResponse | undefined }>((resolve, reject) => {
    const recorder = new ResponseRecorder(maxBytes);
    const req = request(
      `${mock.url}/v1/chat/completions`,
      {
        method: 'POST',
        headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json', ...headers },
      },
      (res) => {
        recorder.head(res.statusCode ?? 0, res.headers);
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          recorder.push(chunk);
        });
        res.on('end', () => {
          if (res.complete) recorder.end();
          resolve({
            exchange: { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) },
            cached: recorder.result(),
          });
        });
        res.on('error', () =>
          resolve({ exchange: { status: 0, headers: {}, body: Buffer.alloc(0) }, cached: recorder.result() }),
        );
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const chat = (stream: boolean) => ({
  model: 'gpt-4o',
  stream,
  messages: [{ role: 'user', content: 'tell me about caching in three words or more' }],
});

describe('ResponseRecorder and replay', () => {
  let mock: MockProvider;
  const servers: Server[] = [];

  beforeAll(async () => {
    mock = await createMockProvider();
  });
  afterAll(async () => {
    await mock.close();
    for (const server of servers) server.close();
  });

  async function replayed(cached: CachedResponse, extra: Record<string, string> = {}): Promise<Exchange> {
    const { url, server } = await serve((res) => void replay(res, cached, extra));
    servers.push(server);
    return send(url);
  }

  it('replays a JSON answer byte for byte, with its headers and a fresh content-length', async () => {
    const { exchange, cached } = await record(mock, chat(false));
    expect(exchange.status).toBe(200);
    expect(cached).toBeDefined();
    expect(cached!.streamed).toBe(false);
    expect(cached!.body.equals(exchange.body)).toBe(true);
    const again = await replayed(cached!, { 'x-service-cache-status': 'HIT', 'x-service-trace-id': 't-1' });
    expect(again.status).toBe(200);
    expect(again.body.equals(exchange.body)).toBe(true);
    expect(again.headers['content-type']).toBe(exchange.headers['content-type']);
    expect(again.headers['openai-version']).toBe('2020-10-01');
    expect(again.headers['content-length']).toBe(String(exchange.body.length));
    expect(again.headers['x-service-cache-status']).toBe('HIT');
    expect(again.headers['x-service-trace-id']).toBe('t-1');
    // A fresh call differs (new id): what the client got is the stored answer, not a new one.
    const fresh = await record(mock, chat(false));
    expect(fresh.exchange.body.equals(exchange.body)).toBe(false);
  });

  it('replays an event stream byte for byte, chunked and event by event', async () => {
    const { exchange, cached } = await record(mock, chat(true));
    expect(exchange.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(cached?.streamed).toBe(true);
    const again = await replayed(cached!, { 'x-service-cache-status': 'HIT' });
    expect(again.body.equals(exchange.body)).toBe(true);
    expect(again.body.toString().endsWith('data: [DONE]\n\n')).toBe(true);
    expect(again.headers['content-type']).toBe(exchange.headers['content-type']);
    expect(again.headers['content-length']).toBeUndefined();
    expect(again.headers['transfer-encoding']).toBe('chunked');
  });

  it('replays a large stream completely through backpressure', async () => {
    const event = (i: number) => `data: {"i":${i},"pad":"${'x'.repeat(200)}"}\n\n`;
    const body = Buffer.from(Array.from({ length: 20_000 }, (_, i) => event(i)).join(''));
    const cached: CachedResponse = {
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      body,
      streamed: true,
      storedAt: Date.now(),
    };
    const again = await replayed(cached);
    expect(again.body.length).toBe(body.length);
    expect(again.body.equals(body)).toBe(true);
  });

  it('keeps stable headers and drops per-call, per-moment and framing ones', async () => {
    const { exchange, cached } = await record(mock, chat(false));
    expect(exchange.headers['x-request-id']).toBeDefined();
    expect(exchange.headers['x-ratelimit-remaining-requests']).toBeDefined();
    expect(Object.keys(cached!.headers).sort()).toEqual(['content-type', 'openai-version']);
    const recorder = new ResponseRecorder(1024);
    recorder.head(200, {
      'content-type': 'application/json',
      date: 'Mon, 01 Jan 2024 00:00:00 GMT',
      'set-cookie': ['a=1', 'b=2'],
      connection: 'keep-alive, x-hop',
      'x-hop': '1',
      'x-service-cache-status': 'MISS',
      'anthropic-ratelimit-tokens-remaining': '1',
      'x-kept': 'yes',
    });
    recorder.push(Buffer.from('{}'));
    recorder.end();
    expect(recorder.result()?.headers).toEqual({ 'content-type': 'application/json', 'x-kept': 'yes' });
  });

  it('records nothing for errors, cut streams, oversized or encoded bodies', async () => {
    const failed = await record(mock, chat(false), { 'x-mock-status': '500' });
    expect(failed.exchange.status).toBe(500);
    expect(failed.cached).toBeUndefined();

    const cut = await record(mock, chat(true), { 'x-mock-cut-after-chunks': '2' });
    expect(cut.cached).toBeUndefined();

    const big = await record(mock, chat(false), {}, 64);
    expect(big.exchange.body.length).toBeGreaterThan(64);
    expect(big.cached).toBeUndefined();

    const encoded = new ResponseRecorder(1024);
    encoded.head(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    encoded.push(Buffer.from([0x1f, 0x8b]));
    encoded.end();
    expect(encoded.result()).toBeUndefined();

    const unfinished = new ResponseRecorder(1024);
    unfinished.head(200, { 'content-type': 'application/json' });
    unfinished.push(Buffer.from('{"partial"'));
    expect(unfinished.result()).toBeUndefined();

    const refused = new ResponseRecorder(1024);
    refused.head(200, { 'content-type': 'application/json' });
    refused.push(Buffer.from('{}'));
    refused.refuse();
    refused.end();
    expect(refused.result()).toBeUndefined();
  });
});
