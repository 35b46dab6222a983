import { get, type IncomingHttpHeaders } from 'node:http';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { dispatchHeaders, headersFromRaw, poolFor, urlParts } from './upstream-pool.js';

// An answer with repeated and mixed-case headers of every kind node:http treats differently.
const RAW_ANSWER = [
  'HTTP/1.1 200 OK',
  'Content-Type: application/json',
  'content-type: text/plain',
  'Set-Cookie: a=1',
  'set-cookie: b=2',
  'X-Multi: one',
  'x-multi: two',
  'Cache-Control: no-cache',
  'Cache-Control: no-store',
  'Server: first',
  'Server: second',
  'X-Empty: ',
  'X-Latin: caf\u00e9',
  'Constructor: x',
  'constructor: y',
  'Content-Length: 2',
  '',
  'ok',
].join('\r\n');

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((socket) => {
    socket.once('data', () => socket.end(Buffer.from(RAW_ANSWER, 'latin1')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.close();
});

function nodeHeaders(): Promise<IncomingHttpHeaders> {
  return new Promise((resolve, reject) => {
    get(`${base}/`, { agent: false }, (res) => {
      res.resume();
      resolve(res.headers);
    }).on('error', reject);
  });
}

function undiciRawHeaders(): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    poolFor(new URL(base), 5_000, undefined).dispatch(
      { method: 'GET', path: '/', headers: { connection: 'close' } },
      {
        onConnect() {},
        onHeaders(_status: number, raw: Buffer[]) {
          resolve(raw);
          return true;
        },
        onData: () => true,
        onComplete() {},
        onError: reject,
      },
    );
  });
}

describe('headersFromRaw', () => {
  test("gives the headers node:http's IncomingMessage gives for the same answer", async () => {
    const [expected, raw] = await Promise.all([nodeHeaders(), undiciRawHeaders()]);
    const headers = headersFromRaw(raw);
    expect(headers).toEqual(expected);
    // The cases that differ from a plain last-wins object, spelled out.
    expect(headers['content-type']).toBe('application/json');
    expect(headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(headers['x-multi']).toBe('one, two');
    expect(headers.server).toBe('first');
    expect(headers['x-latin']).toBe('caf\u00e9');
    // A name that is also a member of Object.prototype is a header like any other.
    expect(headers.constructor).toBe('x, y');
  });
});

describe('dispatchHeaders', () => {
  test('returns the same object when there is nothing undici would refuse', () => {
    const headers = { 'content-type': 'application/json', 'content-length': '2' };
    expect(dispatchHeaders(headers, Buffer.from('{}'))).toBe(headers);
    expect(dispatchHeaders({ 'content-length': '10' }, undefined)).toEqual({ 'content-length': '10' });
  });

  test('drops expect, and a declared length that is not the held body', () => {
    const headers = { expect: '100-continue', 'content-length': '99', accept: '*/*' };
    expect(dispatchHeaders(headers, Buffer.from('{}'))).toEqual({ accept: '*/*' });
    // The caller's object is left as it was.
    expect(headers).toEqual({ expect: '100-continue', 'content-length': '99', accept: '*/*' });
    expect(dispatchHeaders({ 'content-length': '3' }, null)).toEqual({});
    expect(dispatchHeaders({ 'content-length': '0' }, null)).toEqual({ 'content-length': '0' });
  });
});

describe('poolFor', () => {
  test('one pool per origin and idle limit, and one per pinned lookup', () => {
    const url = new URL('http://127.0.0.1:1/v1/chat');
    const same = new URL('http://127.0.0.1:1/other');
    expect(poolFor(url, 1000, undefined)).toBe(poolFor(same, 1000, undefined));
    expect(poolFor(url, 1000, undefined)).not.toBe(poolFor(url, 2000, undefined));
    const lookup = (() => {}) as never;
    const pinned = poolFor(url, 1000, lookup);
    expect(pinned).not.toBe(poolFor(url, 1000, undefined));
    expect(poolFor(same, 1000, lookup)).toBe(pinned);
    expect(poolFor(url, 1000, (() => {}) as never)).not.toBe(pinned);
  });
});

describe('urlParts', () => {
  test('reads origin and path once per URL, and again once the URL was changed', () => {
    const url = new URL('http://127.0.0.1:1/v1/chat?x=1');
    const first = urlParts(url);
    expect(first).toMatchObject({ origin: 'http://127.0.0.1:1', path: '/v1/chat?x=1' });
    expect(urlParts(url)).toBe(first);
    url.search = '?y=2';
    url.host = '127.0.0.2:3';
    expect(urlParts(url)).toMatchObject({ origin: 'http://127.0.0.2:3', path: '/v1/chat?y=2' });
  });
});
