// forward() against providers that fail in the ways undici reports differently from node:http: the
// client must get the same gateway errors it got before (names of node:http's errors, timeouts).
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { type ForwardResult, forward } from './forward.js';

const servers: (Server | HttpServer)[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    if ('closeAllConnections' in server) server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function listen<T extends Server | HttpServer>(server: T): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A gateway of one route: forward() to `upstream`, the result kept for the test. */
async function gatewayTo(upstream: string, idleTimeoutMs = 5_000) {
  const results: ForwardResult[] = [];
  const base = await listen(
    createHttpServer((req, res) => {
      void forward(res, {
        method: req.method ?? 'POST',
        url: new URL(`${upstream}/v1/chat/completions`),
        headers: { 'content-type': 'application/json', host: new URL(upstream).host },
        body: Buffer.from('{}'),
        idleTimeoutMs,
        extraResponseHeaders: { 'x-service-provider': 'openai' },
        maxBodyBytes: 1024,
      }).then((result) => results.push(result));
    }),
  );
  return { base, results };
}

describe('forward', () => {
  test('a provider that closes the connection without answering is ECONNRESET, as with node:http', async () => {
    const upstream = await listen(createServer((socket) => socket.once('data', () => socket.destroy())));
    const { base } = await gatewayTo(upstream);
    const res = await fetch(`${base}/`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(502);
    expect(res.headers.get('x-service-provider')).toBe('openai');
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error).toMatchObject({
      code: 'upstream_unreachable',
      message: 'Could not reach the provider: ECONNRESET',
    });
  });

  test('a refused connection names the system error', async () => {
    const { base } = await gatewayTo('http://127.0.0.1:9');
    const res = await fetch(`${base}/`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(502);
    const body = (await res.json()) as { error: { message: string } };
    expect(body.error.message).toBe('Could not reach the provider: ECONNREFUSED');
  });

  test('a provider silent past the idle limit is upstream_timeout (504)', async () => {
    // Reads what is sent and never answers (reading lets it see the gateway hang up).
    const upstream = await listen(createServer((socket) => socket.resume()));
    const { base, results } = await gatewayTo(upstream, 200);
    const res = await fetch(`${base}/`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(504);
    const body = (await res.json()) as { error: { code: string } };
    expect(body.error.code).toBe('upstream_timeout');
    expect(results[0]?.error?.code).toBe('upstream_timeout');
  });

  test('an answer cut mid-body is reported as upstream_interrupted and the client connection is cut', async () => {
    const upstream = await listen(
      createServer((socket) =>
        socket.once('data', () => {
          socket.write(
            'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"a":',
          );
          setTimeout(() => socket.destroy(), 50);
        }),
      ),
    );
    const { base, results } = await gatewayTo(upstream);
    const res = await fetch(`${base}/`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
    await expect.poll(() => results[0]?.error?.code).toBe('upstream_interrupted');
    expect(results[0]?.clientAborted).toBe(false);
  });
});
