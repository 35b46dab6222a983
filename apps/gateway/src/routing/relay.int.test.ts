// The relay of a config target's answer to the client, over real HTTP against the mock provider.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMockProvider, type MockProvider } from '@aigw/mock-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openExchange } from '../upstream/upstream-exchange.js';
import { type RelayResult, relay } from './relay.js';

let mock: MockProvider;

function call(headers: Record<string, string>) {
  const body = Buffer.from(
    JSON.stringify({
      model: 'gpt-4o',
      stream: headers['x-stream'] === '1',
      messages: [{ role: 'user', content: 'one two three' }],
    }),
  );
  return openExchange({
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
  });
}

beforeAll(async () => {
  mock = await createMockProvider();
});
afterAll(async () => {
  await mock.close();
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
