// forward() against providers that fail in the ways undici reports differently from node:http: the
// client must get the same gateway errors it got before (names of node:http's errors, timeouts).
import { Agent, createServer as createHttpServer, type Server as HttpServer, request } from 'node:http';
import { type AddressInfo, connect, createServer, type Server } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { BodyCapture } from './capture.js';
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

/** An upstream that answers every request with the body it received, and remembers them. */
async function echo() {
  const bodies: string[] = [];
  const url = await listen(
    createHttpServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString();
        bodies.push(body);
        res.writeHead(200, { 'content-type': 'text/plain' }).end(body);
      });
    }),
  );
  return { url, bodies };
}

/** A raw HTTP/1.1 request on `socket`, its body in `parts` written `gapMs` apart; the answer's text. */
async function rawRequest(base: string, parts: string[], gapMs: number, headers = ''): Promise<string> {
  const { port } = new URL(base);
  const socket = connect(Number(port), '127.0.0.1');
  const length = parts.join('').length;
  let answer = '';
  socket.on('data', (chunk: Buffer) => {
    answer += chunk.toString();
  });
  const closed = new Promise((resolve) => socket.on('close', resolve));
  socket.write(
    `POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n${headers || `content-length: ${length}\r\n`}connection: close\r\n\r\n${parts[0]}`,
  );
  for (const part of parts.slice(1)) {
    await new Promise((resolve) => setTimeout(resolve, gapMs));
    socket.write(part);
  }
  await closed;
  return answer;
}

describe("the client's body", () => {
  /** A gateway whose route forwards the client's own request body; what it captured, per request. */
  async function relayTo(upstream: string) {
    const captured: BodyCapture[] = [];
    /** Whether forward() read the body as a stream ('data' listeners: flowing) or took it whole. */
    const streamed: (boolean | null)[] = [];
    const base = await listen(
      createHttpServer((req, res) => {
        const sink = new BodyCapture(1024);
        captured.push(sink);
        // Later than the 'request' event, as the pipeline's stages are: what has arrived by then.
        setImmediate(() => {
          void forward(res, {
            method: 'POST',
            url: new URL(`${upstream}/v1/embeddings`),
            headers: { 'content-type': 'application/json', host: new URL(upstream).host },
            body: req,
            idleTimeoutMs: 5_000,
            extraResponseHeaders: {},
            maxBodyBytes: 1024,
            requestSink: sink,
          });
          streamed.push(req.readableFlowing);
        });
      }),
    );
    return { base, captured, streamed };
  }

  test('one that has arrived whole goes upstream as it came, captured, and the connection is reused', async () => {
    const upstream = await echo();
    const gw = await relayTo(upstream.url);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (const input of ['{"input":"one"}', '{"input":"two, a little longer"}']) {
        const answer = await new Promise<string>((resolve, reject) => {
          const req = request(
            `${gw.base}/`,
            { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
            (res) => {
              let text = '';
              res.on('data', (chunk: Buffer) => {
                text += chunk.toString();
              });
              res.on('end', () => resolve(text));
            },
          );
          req.on('error', reject);
          req.end(input);
        });
        expect(answer).toBe(input);
      }
      expect(upstream.bodies).toEqual(['{"input":"one"}', '{"input":"two, a little longer"}']);
      // Taken whole: never switched to flowing mode.
      expect(gw.streamed).toEqual([null, null]);
      expect(gw.captured.map((c) => c.complete()?.toString())).toEqual(upstream.bodies);
    } finally {
      agent.destroy();
    }
  });

  test('one still arriving, or chunked, streams through whole', async () => {
    const upstream = await echo();
    const gw = await relayTo(upstream.url);
    const slow = await rawRequest(gw.base, ['{"input":', '"late"}'], 100);
    expect(slow).toContain('200 OK');
    expect(slow).toContain('{"input":"late"}');
    const chunked = await rawRequest(
      gw.base,
      ['7\r\n{"a":1}\r\n', '0\r\n\r\n'],
      20,
      'transfer-encoding: chunked\r\n',
    );
    expect(chunked).toContain('200 OK');
    expect(chunked).toContain('{"a":1}');
    expect(upstream.bodies).toEqual(['{"input":"late"}', '{"a":1}']);
    expect(gw.streamed).toEqual([true, true]);
    expect(gw.captured.map((c) => c.complete()?.toString())).toEqual(upstream.bodies);
  });
});
