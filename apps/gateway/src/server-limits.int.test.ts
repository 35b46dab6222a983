// The gateway's HTTP server against hostile clients on the wire (raw sockets, no HTTP client that
// would tidy the request up): slow-loris heads and bodies, request smuggling shapes, oversized heads.
import { connect } from 'node:net';
import { createMockProvider, type MockProvider } from '@aigw/mock-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type GatewayApp } from './app.js';
import { loadGatewayConfig } from './config.js';

let app: GatewayApp;
let mock: MockProvider;

beforeAll(async () => {
  mock = await createMockProvider();
  app = createApp(
    loadGatewayConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      CUSTOM_HOST_ALLOWLIST: '127.0.0.1',
      HEADERS_TIMEOUT_MS: '500',
      REQUEST_BODY_TIMEOUT_MS: '1000',
      MAX_BODY_BYTES: '4096',
    }),
  );
  await app.start();
});

afterAll(async () => {
  await app?.stop();
  await mock?.close();
});

/**
 * Writes `parts` to a fresh connection, `gapMs` apart, until the server closes it; resolves with
 * everything the server answered. Stops writing once the server closed.
 */
function exchange(parts: readonly string[], gapMs = 0): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(app.port, '127.0.0.1');
    let answer = '';
    let closed = false;
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      closed = true;
      resolve(answer);
    });
    void (async () => {
      for (const part of parts) {
        if (closed) return;
        socket.write(part);
        if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
      }
    })();
  });
}

const body = '{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}';
const head = () =>
  'POST /v1/chat/completions HTTP/1.1\r\nhost: gateway\r\n' +
  `x-service-provider: openai\r\nx-service-custom-host: ${mock.url}/v1\r\n` +
  'authorization: Bearer sk-test\r\ncontent-type: application/json\r\n';

describe('slow clients', () => {
  // Node checks these timeouts on an interval (30 s by default): without a shorter one, a 500 ms
  // HEADERS_TIMEOUT_MS would only be enforced up to 30 s later and this test would time out.
  it('a head trickled byte by byte gets 408 and a closed connection at HEADERS_TIMEOUT_MS', {
    timeout: 10_000,
  }, async () => {
    mock.clear();
    const trickle = `${head()}content-length: ${body.length}\r\n\r\n`.split('');
    const answer = await exchange(trickle, 100);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(mock.requests).toEqual([]);
  });

  it('a body trickled byte by byte gets 408 and a closed connection at REQUEST_BODY_TIMEOUT_MS', {
    timeout: 10_000,
  }, async () => {
    const trickle = [`${head()}content-length: ${body.length}\r\n\r\n`, ...body.split('')];
    const answer = await exchange(trickle, 150);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  });
});

describe('malformed framing', () => {
  it.each([
    [
      'Content-Length with Transfer-Encoding',
      'content-length: 5\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n',
    ],
    ['two different Content-Lengths', `content-length: ${body.length}\r\ncontent-length: 3\r\n\r\n${body}`],
    ['a Transfer-Encoding that is not chunked last', 'transfer-encoding: chunked, identity\r\n\r\n0\r\n\r\n'],
  ])('%s: 400 and a closed connection, nothing sent upstream', async (_case, rest) => {
    mock.clear();
    const answer = await exchange([`${head()}${rest}`]);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('Connection: close');
    expect(mock.requests).toEqual([]);
  });

  it('a head over MAX_HEADER_BYTES (32 KiB) or with 10 000 headers: 431 and a closed connection', async () => {
    mock.clear();
    const big = await exchange([`${head()}x-big: ${'a'.repeat(40 * 1024)}\r\ncontent-length: 0\r\n\r\n`]);
    expect(big).toMatch(/^HTTP\/1\.1 431 /);
    let many = '';
    for (let i = 0; i < 10_000; i++) many += `x-h${i}: 1\r\n`;
    const lots = await exchange([`${head()}${many}content-length: 0\r\n\r\n`]);
    expect(lots).toMatch(/^HTTP\/1\.1 431 /);
    expect(mock.requests).toEqual([]);
  });
});

describe('bodies over MAX_BODY_BYTES', () => {
  // Without `connection: close` node:http would keep the connection and read the rest of the
  // body (up to REQUEST_BODY_TIMEOUT_MS) only to throw it away.
  it('get 413 with connection: close, and the connection ends', async () => {
    mock.clear();
    const big = `{"model":"gpt-4o","messages":[{"role":"user","content":"${'x'.repeat(8000)}"}]}`;
    const answer = await exchange([`${head()}content-length: ${big.length}\r\n\r\n`, big]);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.toLowerCase()).toContain('\r\nconnection: close\r\n');
    expect(mock.requests).toEqual([]);
  });
});
