// One upstream call and its relay, over real HTTP against the mock provider.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMockProvider, type MockProvider } from '@aigw/mock-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RelayResult, relay } from './relay.js';
import { callUpstream, readAnswer, type UpstreamCallRequest } from './upstream-call.js';

let mock: MockProvider;
const chat = (stream = false) =>
  Buffer.from(
    JSON.stringify({ model: 'gpt-4o', stream, messages: [{ role: 'user', content: 'one two three' }] }),
  );

function call(headers: Record<string, string> = {}, extra: Partial<UpstreamCallRequest> = {}) {
  const body = extra.body ?? chat(headers['x-stream'] === '1');
  return callUpstream({
    method: 'POST',
    url: new URL(`${mock.url}/v1/chat/completions`),
    headers: {
      'content-type': 'application/json',
      authorization: 'Bearer sk-test',
      'content-length': String(body.length),
      ...headers,
    },
    body,
    idleTimeoutMs: 10_000,
    ...extra,
  });
}

beforeAll(async () => {
  mock = await createMockProvider();
});
afterAll(async () => {
  await mock.close();
});

describe('callUpstream', () => {
  it('resolves at the head, before the body arrives, and reads it whole on demand', async () => {
    const ex = await call({ 'x-stream': '1', 'x-mock-chunk-delay-ms': '30' });
    expect(ex.error).toBeUndefined();
    expect(ex.response?.statusCode).toBe(200);
    expect(ex.firstByteAt).toBeGreaterThanOrEqual(ex.startedAt);
    expect(ex.response?.complete).toBe(false);
    const body = await readAnswer(ex, 1 << 20);
    expect(body.equals(mock.requests.at(-1)?.response?.body as Buffer)).toBe(true);
  });

  it('reports a refused connection as upstream_unreachable (502) without a response', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const ex = await call({}, { url: new URL(`http://127.0.0.1:${port}/v1/chat/completions`) });
    expect(ex.response).toBeUndefined();
    expect(ex.error?.code).toBe('upstream_unreachable');
    expect(ex.error?.status).toBe(502);
  });

  it('times out before the head with request_timeout (408)', async () => {
    const ex = await call({ 'x-mock-latency-ms': '2000' }, { timeoutMs: 100 });
    expect(ex.response).toBeUndefined();
    expect(ex.error?.code).toBe('request_timeout');
    expect(ex.error?.status).toBe(408);
  });

  it('keeps the timeout running while the answer streams, and cuts it then', async () => {
    const ex = await call({ 'x-stream': '1', 'x-mock-stall-after-chunks': '1' }, { timeoutMs: 200 });
    expect(ex.response?.statusCode).toBe(200);
    const read = await readAnswer(ex, 1 << 20).catch((err: unknown) => err);
    expect((read as { code?: string }).code).toBe('request_timeout');
  });

  it('hands over an error status as an answer, with its headers', async () => {
    const ex = await call({ 'x-mock-status': '429', 'x-mock-retry-after': '0.25' });
    expect(ex.response?.statusCode).toBe(429);
    expect(ex.response?.headers['retry-after-ms']).toBe('250');
    ex.abort();
  });
});

describe('relay', () => {
  async function through(
    headers: Record<string, string>,
  ): Promise<{ text: string; result: RelayResult; ok: boolean }> {
    let resolveResult!: (r: RelayResult) => void;
    const done = new Promise<RelayResult>((r) => {
      resolveResult = r;
    });
    const server: Server = createServer(async (_req, res) => {
      const ex = await call(headers);
      resolveResult(await relay(res, ex, { 'x-service-trace-id': 't-1' }, []));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      expect(res.headers.get('x-service-trace-id')).toBe('t-1');
      let text = '';
      let ok = true;
      try {
        text = await res.text();
      } catch {
        ok = false;
      }
      return { text, result: await done, ok };
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  }

  it('streams an event stream through byte for byte', async () => {
    const { text, result, ok } = await through({ 'x-stream': '1' });
    expect(ok).toBe(true);
    expect(text).toBe(mock.requests.at(-1)?.response?.body.toString());
    expect(result.complete).toBe(true);
    expect(result.status).toBe(200);
  });

  it('cuts the client off when the provider cuts the stream after the first byte', async () => {
    const { result, ok } = await through({ 'x-stream': '1', 'x-mock-cut-after-chunks': '2' });
    expect(ok).toBe(false);
    expect(result.complete).toBe(false);
    expect(result.error?.code).toBe('upstream_interrupted');
    expect(result.responseBytes).toBeGreaterThan(0);
  });
});
