// One upstream call read by the gateway (config targets, MCP token calls), over real HTTP against the
// mock provider and against servers that fail.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { createMockProvider, type MockProvider } from '@aigw/mock-provider';
import { pinnedLookup } from '@aigw/ssrf';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_CLOSED, openExchange, readAnswer, type UpstreamCallRequest } from './upstream-exchange.js';

let mock: MockProvider;
const chat = (stream = false) =>
  Buffer.from(
    JSON.stringify({ model: 'gpt-4o', stream, messages: [{ role: 'user', content: 'one two three' }] }),
  );

function call(headers: Record<string, string> = {}, extra: Partial<UpstreamCallRequest> = {}) {
  const body = extra.body ?? chat(headers['x-stream'] === '1');
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
    ...extra,
  });
}

beforeAll(async () => {
  mock = await createMockProvider();
});
afterAll(async () => {
  await mock.close();
});

describe('openExchange', () => {
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

const servers: (Server | TcpServer)[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    if ('closeAllConnections' in server) server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** Listens on 127.0.0.1; the port. */
async function listen(server: Server | TcpServer): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

const post = (url: string, extra: Partial<UpstreamCallRequest> = {}) =>
  openExchange({
    method: 'POST',
    url: new URL(url),
    headers: { 'content-type': 'application/json', 'content-length': '2' },
    body: Buffer.from('{}'),
    idleTimeoutMs: 10_000,
    ...extra,
  });

describe('openExchange against providers that fail', () => {
  it('times out a provider that goes quiet before the head with upstream_timeout (504)', async () => {
    const port = await listen(createServer(() => {}));
    const ex = await post(`http://127.0.0.1:${port}/v1/chat/completions`, { idleTimeoutMs: 150 });
    expect(ex.response).toBeUndefined();
    expect(ex.error?.code).toBe('upstream_timeout');
    expect(ex.error?.status).toBe(504);
  });

  it('names a connection closed before the head as node:http did (ECONNRESET)', async () => {
    const port = await listen(createTcpServer((socket) => socket.once('data', () => socket.destroy())));
    const ex = await post(`http://127.0.0.1:${port}/v1/chat/completions`);
    expect(ex.error?.code).toBe('upstream_unreachable');
    expect(ex.error?.message).toBe('Could not reach the provider: ECONNRESET');
  });

  it('drops a call whose client left before the head (client_closed), closing it upstream', async () => {
    let arrived!: () => void;
    const requestIn = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    let closedUpstream!: () => void;
    const upstreamClosed = new Promise<void>((resolve) => {
      closedUpstream = resolve;
    });
    const port = await listen(
      createServer((req) => {
        req.socket.once('close', closedUpstream);
        arrived();
      }),
    );
    const client = new AbortController();
    const pending = post(`http://127.0.0.1:${port}/v1/chat/completions`, { signal: client.signal });
    await requestIn;
    client.abort();
    const ex = await pending;
    expect(ex.response).toBeUndefined();
    expect(ex.error?.code).toBe(CLIENT_CLOSED);
    expect(ex.error?.status).toBe(499);
    // The provider's connection is closed, not left to finish a request nobody reads.
    await upstreamClosed;
  });

  it('hands a redirect over as the answer, never following it', async () => {
    let followed = 0;
    const elsewhere = await listen(
      createServer((_req, res) => {
        followed++;
        res.end('{}');
      }),
    );
    const port = await listen(
      createServer((_req, res) => {
        res.writeHead(307, { location: `http://127.0.0.1:${elsewhere}/v1/chat/completions` }).end();
      }),
    );
    const ex = await post(`http://127.0.0.1:${port}/v1/chat/completions`);
    expect(ex.response?.statusCode).toBe(307);
    expect(ex.response?.headers.location).toBe(`http://127.0.0.1:${elsewhere}/v1/chat/completions`);
    await readAnswer(ex, 1024);
    expect(followed).toBe(0);
  });

  it('refuses a provider whose certificate no trusted authority signed', async () => {
    const tls = new URL('../../testdata/tls/', import.meta.url);
    const port = await listen(
      createHttpsServer(
        {
          key: readFileSync(new URL('self-signed.key', tls)),
          cert: readFileSync(new URL('self-signed.crt', tls)),
        },
        (_req, res) => res.end('{}'),
      ),
    );
    const ex = await post(`https://127.0.0.1:${port}/v1/chat/completions`);
    expect(ex.response).toBeUndefined();
    expect(ex.error?.code).toBe('upstream_unreachable');
    expect(ex.error?.message).toBe('Could not reach the provider: DEPTH_ZERO_SELF_SIGNED_CERT');
  });
});

describe('openExchange: what goes upstream', () => {
  it('connects a custom host through its pinned lookup only, and sends the held body with its own length', async () => {
    const seen: { headers: IncomingHttpHeaders; body: string }[] = [];
    const port = await listen(
      createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          seen.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
          res.end('{"ok":true}');
        });
      }),
    );
    // A name no resolver knows: only the pinned lookup can take it to 127.0.0.1.
    const url = new URL(`http://provider.aigw-test.invalid:${port}/v1/chat/completions`);
    const lookup = pinnedLookup({
      url,
      hostname: 'provider.aigw-test.invalid',
      addresses: [{ address: '127.0.0.1', family: 4 }],
      allowlisted: false,
    });
    const body = Buffer.from('{"model":"gpt-4o"}');
    const ex = await openExchange({
      method: 'POST',
      url,
      // A stale declared length and an `expect` (node:http answered the client's 100-continue).
      headers: { 'content-type': 'application/json', 'content-length': '2', expect: '100-continue' },
      body,
      lookup,
      idleTimeoutMs: 10_000,
    });
    expect(ex.error).toBeUndefined();
    expect((await readAnswer(ex, 1024)).toString()).toBe('{"ok":true}');
    expect(seen).toHaveLength(1);
    expect(seen[0]?.body).toBe('{"model":"gpt-4o"}');
    expect(seen[0]?.headers['content-length']).toBe(String(body.length));
    expect(seen[0]?.headers.expect).toBeUndefined();
    expect(seen[0]?.headers.host).toBe(`provider.aigw-test.invalid:${port}`);
  });

  it('refuses a host its pinned lookup was not made for', async () => {
    const port = await listen(createServer((_req, res) => res.end('{}')));
    const lookup = pinnedLookup({
      url: new URL('http://checked.aigw-test.invalid'),
      hostname: 'checked.aigw-test.invalid',
      addresses: [{ address: '127.0.0.1', family: 4 }],
      allowlisted: false,
    });
    const ex = await post(`http://other.aigw-test.invalid:${port}/v1/chat/completions`, { lookup });
    expect(ex.response).toBeUndefined();
    expect(ex.error?.code).toBe('upstream_unreachable');
  });
});

describe('openExchange: back-pressure', () => {
  it('stops reading from the provider while nobody reads the answer, and delivers every byte once read', async () => {
    const size = 32 * 1024 * 1024; // far beyond every buffer on the way (socket buffers, the stream's)
    let finished = false;
    const port = await listen(
      createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(size) });
        res.end(Buffer.alloc(size, 'a'), () => {
          finished = true;
        });
      }),
    );
    const ex = await post(`http://127.0.0.1:${port}/v1/files`);
    const answer = ex.response;
    if (!answer) throw new Error('no answer');
    // Nobody reads: the stream fills to its mark, then the provider's socket must stop being read.
    while (answer.readableLength < answer.readableHighWaterMark) await new Promise((r) => setImmediate(r));
    // Loopback moves 32 MiB in far less than this; without back-pressure it would all be held here.
    await new Promise((r) => setTimeout(r, 250));
    expect(answer.readableLength).toBeLessThan(2 * 1024 * 1024);
    expect(answer.complete).toBe(false);
    expect(finished).toBe(false);
    const body = await readAnswer(ex, size);
    expect(body.length).toBe(size);
    expect(answer.complete).toBe(true);
  });
});
