// The pass-through contract: headers of spec 4.6, provider errors unchanged, gateway errors in the
// envelope, timeouts, client aborts, limits, realtime, and custom hosts that must never be reached.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestEvent } from '@aigw/proto';
import { test } from '@aigw/testkit';
import { afterAll, describe, expect } from 'vitest';
import WebSocket from 'ws';
import { type Harness, startHarness } from '../../test/harness.js';

let h: Harness;
const chat = { model: 'gpt-4o', messages: [{ role: 'user', content: 'ping' }] };

function post(path: string, headers: Record<string, string>, body: unknown = chat, signal?: AbortSignal) {
  return fetch(`${h.base}/v1${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

async function gatewayError(res: Response) {
  expect(res.headers.get('x-service-gateway-error')).toBe('true');
  return (
    (await res.json()) as { error: { code: string; param: string | null; message: string; type: string } }
  ).error;
}

afterAll(async () => {
  await h?.close();
});

describe('pass-through', () => {
  test('set up', async ({ nats }) => {
    h = await startHarness(nats, { MAX_BODY_BYTES: String(64 * 1024) });
    expect(h.gateway.port).toBeGreaterThan(0);
  });

  test('keeps path, query and method; x-service-* headers never reach the provider', async () => {
    for (const method of ['GET', 'DELETE', 'PUT', 'POST'] as const) {
      h.mock.clear();
      const res = await fetch(`${h.base}/v1/collections/abc%20d?x=1&y=a%2Fb`, {
        method,
        headers: {
          ...h.openaiHeaders,
          authorization: 'Bearer sk-test',
          'x-service-metadata': '{"_user":"u"}',
          'x-team': 'blue',
        },
        ...(method === 'PUT' || method === 'POST' ? { body: 'raw-bytes' } : {}),
      });
      expect(res.status).toBe(404);
      expect(res.headers.get('x-service-gateway-error')).toBeNull();
      const seen = h.mock.requests[0];
      expect(seen?.method).toBe(method);
      expect(seen?.url).toBe('/v1/collections/abc%20d?x=1&y=a%2Fb');
      expect(seen?.headers['x-team']).toBe('blue');
      expect(Object.keys(seen?.headers ?? {}).filter((n) => n.startsWith('x-service-'))).toEqual([]);
      if (method === 'PUT') expect(seen?.body.toString()).toBe('raw-bytes');
    }
  });

  test('a completion body that is not JSON goes to the provider as sent, which answers it', async () => {
    const sent = '{"model":"gpt-4o","messages":[';
    const res = await fetch(`${h.base}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...h.openaiHeaders, 'content-type': 'application/json', authorization: 'Bearer sk-test' },
      body: sent,
    });
    // The provider's own error, not the gateway's: the gateway read the body only to look at it.
    expect(res.headers.get('x-service-gateway-error')).toBeNull();
    expect(res.status).toBe(400);
    await res.text();
    expect(h.mock.requests.at(-1)?.body.toString('utf8')).toBe(sent);
  });

  test('a second `?` stays in the query, with or without a config', async () => {
    const config = JSON.stringify({
      targets: [
        { provider: 'openai', api_key: 'sk-test', custom_host: h.openaiHeaders['x-service-custom-host'] },
      ],
    });
    for (const headers of [h.openaiHeaders, { 'x-service-config': config }]) {
      h.mock.clear();
      const res = await fetch(`${h.base}/v1/collections/x?a=1?b=2&c=?`, {
        headers: { ...headers, authorization: 'Bearer sk-test' },
      });
      expect(res.status).toBe(404);
      expect(res.headers.get('x-service-gateway-error')).toBeNull();
      expect(h.mock.requests[0]?.url).toBe('/v1/collections/x?a=1?b=2&c=?');
    }
  });

  test('echoes a given trace id and generates one otherwise', async () => {
    const given = await post('/chat/completions', { ...h.openaiHeaders, 'x-service-trace-id': 'trace-abc' });
    expect(given.headers.get('x-service-trace-id')).toBe('trace-abc');
    const generated = await post('/chat/completions', h.openaiHeaders);
    expect(generated.headers.get('x-service-trace-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(generated.headers.get('x-service-provider')).toBe('openai');
  });

  test('provider errors pass through unchanged', async () => {
    const res = await post('/chat/completions', {
      ...h.openaiHeaders,
      'x-mock-status': '429',
      'x-mock-retry-after': '3',
    });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('3');
    expect(res.headers.get('x-service-gateway-error')).toBeNull();
    expect(
      Buffer.from(await res.arrayBuffer()).equals(h.mock.requests.at(-1)?.response?.body ?? Buffer.alloc(1)),
    ).toBe(true);
  });

  test('bad service headers are a 400 in the envelope, before the provider is called', async () => {
    h.mock.clear();
    const cases: Array<[Record<string, string>, string]> = [
      [{ 'x-service-metadata': '{oops' }, 'invalid_header'],
      [{ 'x-service-request-timeout': 'soon' }, 'invalid_header'],
      [{ 'x-service-provider': 'nope' }, 'unknown_provider'],
      [{ 'x-service-provider': '@my-provider' }, 'unknown_provider'],
    ];
    for (const [headers, code] of cases) {
      const res = await post('/chat/completions', { ...h.openaiHeaders, ...headers });
      expect(res.status, JSON.stringify(headers)).toBe(400);
      expect((await gatewayError(res)).code).toBe(code);
    }
    const none = await fetch(`${h.base}/v1/chat/completions`, { method: 'POST', body: '{}' });
    expect((await gatewayError(none)).code).toBe('missing_provider');
    expect(h.mock.requests).toEqual([]);
  });

  test('a request timeout answers 408 and aborts the upstream call', async () => {
    const res = await post('/chat/completions', {
      ...h.openaiHeaders,
      'x-service-request-timeout': '150',
      'x-mock-latency-ms': '3000',
    });
    expect(res.status).toBe(408);
    const error = await gatewayError(res);
    expect(error).toMatchObject({ code: 'request_timeout', type: 'timeout_error' });
    expect(error.message).toContain('150ms');
  });

  test('an unreachable provider is a 502 gateway error', async () => {
    const res = await post('/chat/completions', {
      'x-service-provider': 'openai',
      'x-service-custom-host': 'http://127.0.0.1:9/v1',
    });
    expect(res.status).toBe(502);
    expect((await gatewayError(res)).code).toBe('upstream_unreachable');
  });

  test('bodies over the limit are refused with 413, declared or streamed', async () => {
    const big = 'x'.repeat(70 * 1024);
    const declared = await post('/chat/completions', h.openaiHeaders, big);
    expect(declared.status).toBe(413);
    expect((await gatewayError(declared)).code).toBe('payload_too_large');
    const chunked = await fetch(`${h.base}/v1/files`, {
      method: 'POST',
      headers: { ...h.openaiHeaders, authorization: 'Bearer sk-test' },
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < 10; i++) controller.enqueue(new TextEncoder().encode(big.slice(0, 10 * 1024)));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
  });

  test('bodies relay intact both ways when either side is slower than the other', async () => {
    // 60 KiB up in 4 KiB pieces (the upstream request buffers them while it connects) and 16 MiB
    // down to a client that stops reading for a moment: both relays must pause and resume.
    const up = Buffer.alloc(60 * 1024, 0);
    for (let i = 0; i < up.length; i++) up[i] = (i * 31) % 251;
    const down = Buffer.alloc(16 * 1024 * 1024);
    for (let i = 0; i < down.length; i += 4096) down.writeUInt32BE(i, i);
    let uploaded: Buffer | undefined;
    const echo = createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (chunk: Buffer) => parts.push(chunk));
      req.on('end', () => {
        uploaded = Buffer.concat(parts);
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.end(down);
      });
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    try {
      const res = await fetch(`${h.base}/v1/files`, {
        method: 'POST',
        headers: {
          authorization: 'Bearer sk-test',
          'content-type': 'application/octet-stream',
          'x-service-provider': 'openai',
          'x-service-custom-host': `http://127.0.0.1:${(echo.address() as AddressInfo).port}/v1`,
        },
        body: new ReadableStream({
          start(controller) {
            for (let at = 0; at < up.length; at += 4096) controller.enqueue(up.subarray(at, at + 4096));
            controller.close();
          },
        }),
        duplex: 'half',
      } as RequestInit);
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      const parts: Uint8Array[] = [];
      const first = await reader.read();
      if (first.value) parts.push(first.value);
      // The gateway's writes to this client fill its buffers meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 200));
      for (let next = await reader.read(); !next.done; next = await reader.read()) parts.push(next.value);
      expect(Buffer.concat(parts).equals(down)).toBe(true);
      expect(uploaded?.equals(up)).toBe(true);
    } finally {
      echo.closeAllConnections();
      echo.close();
    }
  });

  test('streams are relayed chunk by chunk, and a client abort cancels the upstream at once', async () => {
    let upstreamClosed: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => {
      upstreamClosed = resolve;
    });
    let received: IncomingMessage | undefined;
    const slow = createServer((req, res) => {
      received = req;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"n":1}\n\n');
      res.on('close', () => upstreamClosed());
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      const controller = new AbortController();
      const res = await post(
        '/chat/completions',
        {
          'x-service-provider': 'openai',
          'x-service-custom-host': `http://127.0.0.1:${(slow.address() as AddressInfo).port}/v1`,
        },
        { ...chat, stream: true },
        controller.signal,
      );
      const reader = res.body!.getReader();
      const first = await reader.read();
      // The first event arrived while the provider keeps the stream open: nothing was buffered.
      expect(new TextDecoder().decode(first.value)).toBe('data: {"n":1}\n\n');
      expect(received?.url).toBe('/v1/chat/completions');
      controller.abort();
      await closed;
      // Its request event reports what was seen until the client left: a client abort, not an
      // upstream failure (the upstream socket closing afterwards does not change it).
      const customHost = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
      let seen = (await h.events(0)).length;
      let event: RequestEvent | undefined;
      for (let i = 0; i < 20 && !event; i++) {
        const all = await h.events(seen + 1);
        seen = all.length;
        event = all.find((e) => e.provider?.customHost === customHost);
      }
      expect(event).toMatchObject({ statusCode: 200, isStream: true, responseSizeBytes: 15 });
      expect(event?.error).toBeUndefined();
      expect(event?.attempts[0]?.error).toBeUndefined();
      expect(Buffer.from(event?.responseBody?.data ?? []).toString()).toBe('data: {"n":1}\n\n');
    } finally {
      slow.closeAllConnections();
      slow.close();
    }
  });

  test("a reused upstream connection keeps the idle limit, not the provider's shorter keep-alive hint", async () => {
    // Node lowers a pooled socket's timeout to the `Keep-Alive: timeout=N` hint minus 1 s; a slower
    // answer on the reused connection must still arrive (it used to be a 504 after 1 s here).
    let calls = 0;
    const upstream = createServer((_req, res) => {
      calls++;
      const answer = () => {
        res.writeHead(200, { 'content-type': 'application/json', 'keep-alive': 'timeout=2' });
        res.end('{"ok":true}');
      };
      if (calls === 1) answer();
      else setTimeout(answer, 1_500);
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    try {
      const headers = {
        'x-service-provider': 'openai',
        'x-service-custom-host': `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`,
      };
      const first = await post('/chat/completions', headers, chat);
      expect(first.status).toBe(200);
      await first.text();
      const second = await post('/chat/completions', headers, chat);
      expect(second.status).toBe(200);
      expect(await second.text()).toBe('{"ok":true}');
      expect(calls).toBe(2);
    } finally {
      upstream.closeAllConnections();
      upstream.close();
    }
  });

  test('an event stream is open for the client before its first event', async () => {
    const silent = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const controller = new AbortController();
    try {
      // fetch resolves with the headers: the provider has not sent a single byte of body.
      const res = await post(
        '/chat/completions',
        {
          'x-service-provider': 'openai',
          'x-service-custom-host': `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1`,
        },
        { ...chat, stream: true },
        controller.signal,
      );
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/event-stream');
      expect(res.headers.get('x-service-provider')).toBe('openai');
    } finally {
      controller.abort();
      silent.closeAllConnections();
      silent.close();
    }
  });

  test('a provider cutting a stream mid-way reaches the client as a broken stream', async () => {
    const res = await post(
      '/chat/completions',
      { ...h.openaiHeaders, 'x-mock-cut-after-chunks': '2' },
      { ...chat, stream: true },
    );
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
  });

  test('realtime: the WebSocket upgrade is proxied both ways', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${h.gateway.port}/v1/realtime?model=gpt-4o-realtime`, {
      headers: { ...h.openaiHeaders, authorization: 'Bearer sk-test' },
    });
    const messages: string[] = [];
    await new Promise<void>((resolve, reject) => {
      ws.on('message', (data) => {
        messages.push(data.toString());
        if (messages.length === 1) ws.send('{"type":"ping"}');
        if (messages.length === 2) resolve();
      });
      ws.on('error', reject);
    });
    ws.close();
    expect(JSON.parse(messages[0] ?? '{}').type).toBe('session.created');
    expect(messages[1]).toBe('{"type":"ping"}');
    const upgrade = h.mock.requests.findLast((r) => r.upgrade);
    expect(upgrade?.headers.authorization).toBe('Bearer sk-test');
    expect(Object.keys(upgrade?.headers ?? {}).filter((n) => n.startsWith('x-service-'))).toEqual([]);
  });
});
