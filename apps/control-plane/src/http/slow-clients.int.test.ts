// Slow and oversized clients against the admin API's listener: stalled heads and bodies get 408 and
// a closed socket within the configured deadlines (not Node's 60 s / 300 s), huge heads get 431.
import { connect } from 'node:net';
import { describe, expect } from 'vitest';
import { ADMIN_KEY, startControlPlane, test } from '../../test/harness.js';

/** Writes `request` on a raw socket (never finishing it) and resolves with all it reads until close. */
function rawExchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
  });
}

const statusLine = (response: string) => response.split('\r\n', 1)[0];

describe('slow and oversized clients', () => {
  // node:http checks the deadlines every connectionsCheckingInterval, which listen() sets to 1 s:
  // both are cut within a few seconds here; with Node's defaults (60 s head, checked every 30 s)
  // the test would time out instead.
  test('a stalled head and a stalled body are cut with 408 at the configured deadlines', {
    timeout: 15_000,
  }, async ({ pg, nats }) => {
    const { app } = startControlPlane(
      { pg, nats },
      { HEADERS_TIMEOUT_MS: '1000', REQUEST_BODY_TIMEOUT_MS: '2000' },
    );
    await app.start();
    try {
      const port = app.ports.http;
      const [head, body] = await Promise.all([
        rawExchange(port, 'GET /v1/organisation HTTP/1.1\r\nHost: 127.0.0.1\r\nx-service-api-'),
        rawExchange(
          port,
          `PUT /v1/organisation HTTP/1.1\r\nHost: 127.0.0.1\r\nx-service-api-key: ${ADMIN_KEY}\r\n` +
            'content-type: application/json\r\ncontent-length: 100\r\n\r\n{"name":',
        ),
      ]);
      expect(statusLine(head)).toBe('HTTP/1.1 408 Request Timeout');
      expect(statusLine(body)).toBe('HTTP/1.1 408 Request Timeout');
    } finally {
      await app.stop();
    }
  });

  test('a 17 KB header line and 10 000 headers are 431', async ({ cp }) => {
    const port = Number(new URL(cp.base).port);
    const long = await rawExchange(
      port,
      `GET /v1/organisation HTTP/1.1\r\nHost: 127.0.0.1\r\nx-pad: ${'a'.repeat(17 * 1024)}\r\n\r\n`,
    );
    expect(statusLine(long)).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    const many = await rawExchange(
      port,
      `GET /v1/organisation HTTP/1.1\r\nHost: 127.0.0.1\r\n${'x:1\r\n'.repeat(10_000)}\r\n`,
    );
    expect(statusLine(many)).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    // The listener is unharmed.
    expect((await cp.call('get', '/organisation')).status).toBe(200);
  });
});
