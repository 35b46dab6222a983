import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  clientHeadersForProvider,
  rawResponseHeaderList,
  responseHeaderList,
  responseHeaders,
  upstreamHeaders,
} from './headers.js';
import { headersFromRaw } from './upstream-pool.js';

describe('headers crossing the gateway', () => {
  it('drops hop-by-hop, Host, Connection-listed and x-service-* headers from the client', () => {
    const out = clientHeadersForProvider({
      host: 'gateway:8787',
      connection: 'keep-alive, x-hop',
      'keep-alive': 'timeout=5',
      'x-hop': '1',
      'transfer-encoding': 'chunked',
      'proxy-authorization': 'Basic x',
      te: 'trailers',
      'x-service-api-key': 'secret',
      'x-service-provider': 'openai',
      authorization: 'Bearer sk',
      'content-type': 'application/json',
      'content-length': '12',
      'openai-beta': 'assistants=v2',
    });
    expect(out).toEqual({
      authorization: 'Bearer sk',
      'content-type': 'application/json',
      'content-length': '12',
      'openai-beta': 'assistants=v2',
    });
  });

  it('applies the provider conversion except for forwarded headers, and sets Host', () => {
    const target = {
      url: new URL('https://api.anthropic.com/v1/messages'),
      setHeaders: { 'x-api-key': 'sk', 'anthropic-version': '2023-06-01' },
      removeHeaders: ['authorization'],
    };
    expect(upstreamHeaders({ authorization: 'Bearer sk', accept: '*/*' }, target, [])).toEqual({
      accept: '*/*',
      'x-api-key': 'sk',
      'anthropic-version': '2023-06-01',
      host: 'api.anthropic.com',
    });
    const forwarded = upstreamHeaders(
      { authorization: 'Bearer sk', 'anthropic-version': '2024-01-01' },
      target,
      ['authorization', 'anthropic-version'],
    );
    expect(forwarded).toMatchObject({
      authorization: 'Bearer sk',
      'anthropic-version': '2024-01-01',
      'x-api-key': 'sk',
    });
  });

  it('passes provider response headers except hop-by-hop ones', () => {
    expect(
      responseHeaders({
        'content-type': 'text/event-stream',
        'transfer-encoding': 'chunked',
        connection: 'keep-alive',
        'keep-alive': 'timeout=5',
        'x-request-id': 'req_1',
        'openai-processing-ms': '12',
      }),
    ).toEqual({ 'content-type': 'text/event-stream', 'x-request-id': 'req_1', 'openai-processing-ms': '12' });
  });

  it('puts the gateway headers first and lets them win over the provider', () => {
    const out = responseHeaders(
      { 'content-type': 'application/json', 'x-service-provider': 'spoofed', date: 'Sun' },
      { 'x-service-trace-id': 't-1', 'x-service-provider': 'openai' },
    );
    expect(Object.entries(out)).toEqual([
      ['x-service-trace-id', 't-1'],
      ['x-service-provider', 'openai'],
      ['content-type', 'application/json'],
      ['date', 'Sun'],
    ]);
  });
});

describe('responseHeaderList', () => {
  const cases: [IncomingHttpHeaders, Record<string, string>][] = [
    [
      { 'content-type': 'application/json', 'x-service-provider': 'spoofed', date: 'Sun' },
      { 'x-service-trace-id': 't-1', 'x-service-provider': 'openai' },
    ],
    [
      {
        'content-type': 'text/event-stream',
        'transfer-encoding': 'chunked',
        connection: 'keep-alive, x-drop-me',
        'x-drop-me': '1',
        'keep-alive': 'timeout=5',
        'set-cookie': ['a=1', 'b=2'],
        'x-request-id': 'req_1',
      },
      { 'x-service-trace-id': 't-2', 'x-service-provider': 'openai', 'x-ratelimit-limit-requests': '10' },
    ],
    [{ 'x-service-trace-id': 'from-provider', 'content-length': '2' }, {}],
  ];

  it('lists what responseHeaders() builds, in the same order', () => {
    for (const [headers, extra] of cases) {
      expect(responseHeaderList(headers, extra)).toEqual(
        Object.entries(responseHeaders(headers, extra)).flat(),
      );
    }
  });

  it('puts the same bytes on the wire through writeHead as the object did', async () => {
    for (const [headers, extra] of cases) {
      const [fromObject, fromList] = await Promise.all([
        rawResponse((res) => res.writeHead(200, 'OK', responseHeaders(headers, extra))),
        rawResponse((res) => res.writeHead(200, 'OK', responseHeaderList(headers, extra))),
      ]);
      expect(fromList).toBe(fromObject);
      expect(fromList).toContain('\r\n');
    }
  });
});

describe('rawResponseHeaderList', () => {
  const raw = (...lines: string[]) => lines.map((line) => Buffer.from(line, 'latin1'));
  const extra = { 'x-service-trace-id': 't-1', 'x-service-provider': 'openai' };

  it('lists what responseHeaderList() lists of headersFromRaw() when every name comes once', async () => {
    const answers = [
      raw('Content-Type', 'application/json', 'Date', 'Sun', 'X-Request-Id', 'req_1', 'Content-Length', '2'),
      raw(
        'content-type',
        'text/event-stream',
        'Transfer-Encoding',
        'chunked',
        'Connection',
        'keep-alive',
        'Keep-Alive',
        'timeout=5',
        'Set-Cookie',
        'a=1',
        'X-Latin',
        'caf\u00e9',
      ),
      // A provider line of a name the gateway sets: the gateway's wins, as in the object.
      raw('X-Service-Provider', 'spoofed', 'Server', 'upstream'),
      raw(),
    ];
    for (const answer of answers) {
      const listed = rawResponseHeaderList(answer, extra);
      const headers = headersFromRaw(answer);
      // The same lines (the object holds a lone set-cookie as a one-element array: the same line).
      const lines = responseHeaderList(headers, extra).map((v) =>
        Array.isArray(v) && v.length === 1 ? v[0] : v,
      );
      expect(listed?.list).toEqual(lines);
      expect(listed?.contentType).toBe(headers['content-type']);
      const [fromObject, fromRaw] = await Promise.all([
        rawResponse((res) => res.writeHead(200, 'OK', responseHeaderList(headers, extra))),
        rawResponse((res) => res.writeHead(200, 'OK', listed?.list ?? [])),
      ]);
      expect(fromRaw).toBe(fromObject);
    }
  });

  it("leaves repeated names and Connection-listed headers to node:http's rules", () => {
    expect(rawResponseHeaderList(raw('Content-Type', 'a/b', 'content-type', 'c/d'), extra)).toBeUndefined();
    expect(rawResponseHeaderList(raw('Set-Cookie', 'a=1', 'Set-Cookie', 'b=2'), extra)).toBeUndefined();
    expect(
      rawResponseHeaderList(raw('Connection', 'keep-alive, x-drop', 'X-Drop', '1'), extra),
    ).toBeUndefined();
    // Repeats of a line the client never gets change nothing.
    expect(rawResponseHeaderList(raw('Keep-Alive', 'a', 'Keep-Alive', 'b', 'X-A', '1'), {})?.list).toEqual([
      'x-a',
      '1',
    ]);
  });
});

/** The raw bytes of a response head written by `write` (the Date header left out). */
async function rawResponse(write: (res: ServerResponse) => void): Promise<string> {
  const server = createServer((_req, res) => {
    res.sendDate = false;
    write(res);
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () =>
        socket.end('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
      );
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString('latin1');
      });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
  } finally {
    server.close();
  }
}
