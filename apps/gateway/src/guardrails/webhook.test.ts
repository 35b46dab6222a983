// The webhook check against a real local HTTP server, through the real SSRF module.
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GuardrailCheck } from '@aigw/config-schema';
import type { LookupFn } from '@aigw/ssrf';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runGuardrails } from './run-guardrails.js';
import type { GuardrailContext, WebhookCall } from './types.js';
import { createWebhookCaller } from './webhook.js';
import { createWebhookHostCheck } from './webhook-host.js';

interface Seen {
  url: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

let server: http.Server;
let base: string;
let port: number;
const seen: Seen[] = [];

const routes: Record<string, (res: http.ServerResponse) => void> = {
  '/pass': (res) => json(res, 200, { verdict: true, data: { score: 0.1 } }),
  '/fail': (res) => json(res, 200, { verdict: false, data: { reason: 'off topic' } }),
  '/slow': () => {},
  '/text': (res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('all good'),
  '/no-verdict': (res) => json(res, 200, { ok: true }),
  '/error': (res) => json(res, 500, { verdict: true }),
  '/redirect': (res) => res.writeHead(302, { location: `${base}/pass` }).end(),
  '/big': (res) => json(res, 200, { verdict: true, data: 'x'.repeat(4096) }),
  '/big-chunked': (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(`{"verdict":true,"data":"${'x'.repeat(2048)}`);
    res.end(`${'x'.repeat(2048)}"}`);
  },
};

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      seen.push({ url: req.url ?? '', headers: req.headers, body: text ? JSON.parse(text) : undefined });
      const route = routes[new URL(req.url ?? '/', 'http://x').pathname];
      if (route) route(res);
      else json(res, 404, {});
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  seen.length = 0;
});

const local = createWebhookCaller({
  checkHost: createWebhookHostCheck({ allowlist: ['127.0.0.1'] }),
  maxResponseBytes: 1024,
});
const call = (path: string, overrides: Partial<WebhookCall> = {}) =>
  local({
    url: `${base}${path}`,
    headers: {},
    timeoutMs: 10_000,
    payload: { phase: 'input', request: { prompt: 'hi' }, metadata: { team: 't' } },
    ...overrides,
  });

describe('createWebhookCaller', () => {
  it('POSTs the payload as JSON and returns the verdict and data', async () => {
    const answer = await call('/pass?tenant=a%20b', {
      headers: { 'x-api-key': 'secret', 'content-type': 'text/plain', host: 'evil.example' },
      payload: { phase: 'output', request: { prompt: 'hi' }, response: { id: 'r' }, metadata: { team: 't' } },
    });
    expect(answer).toEqual({ verdict: true, data: { score: 0.1 } });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.url).toBe('/pass?tenant=a%20b');
    expect(seen[0]!.body).toEqual({
      phase: 'output',
      request: { prompt: 'hi' },
      response: { id: 'r' },
      metadata: { team: 't' },
    });
    expect(seen[0]!.headers).toMatchObject({
      'x-api-key': 'secret',
      'content-type': 'application/json',
      host: `127.0.0.1:${port}`,
    });
  });

  it('returns a failing verdict', async () => {
    expect(await call('/fail')).toEqual({ verdict: false, data: { reason: 'off topic' } });
  });

  it('fails when the webhook does not answer in time', async () => {
    const answer = await call('/slow', { timeoutMs: 100 });
    expect(answer).toEqual({ verdict: false, error: 'the webhook did not answer within 100 ms' });
  });

  it.each([
    ['/text', 'the webhook answer is not JSON'],
    ['/no-verdict', 'the webhook answer has no boolean "verdict"'],
    ['/error', 'the webhook answered with status 500'],
    ['/big', 'the webhook answer is larger than 1024 bytes'],
    ['/big-chunked', 'the webhook answer is larger than 1024 bytes'],
  ])('fails closed on %s', async (path, error) => {
    expect(await call(path)).toEqual({ verdict: false, error });
  });

  it('does not follow a redirect', async () => {
    const answer = await call('/redirect');
    expect(answer).toEqual({
      verdict: false,
      error: 'the webhook answered with status 302 (redirects are not followed)',
    });
    expect(seen.map((s) => s.url)).toEqual(['/redirect']);
  });

  it('fails when nothing listens', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const freePort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const answer = await call('', { url: `http://127.0.0.1:${freePort}/hook` });
    expect(answer.verdict).toBe(false);
    expect(answer.error).toMatch(/^the webhook call failed: connect ECONNREFUSED/);
  });
});

describe('webhook SSRF rules', () => {
  const dns: Record<string, readonly string[]> = {
    'metadata.example.com': ['169.254.169.254'],
    'rebind.example.com': ['93.184.216.34', '127.0.0.1'],
  };
  const lookup: LookupFn = async (hostname) => {
    const addresses = dns[hostname];
    if (!addresses)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address): LookupAddress => ({ address, family: 4 }));
  };
  const strict = createWebhookCaller({ checkHost: createWebhookHostCheck({ allowlist: [], lookup }) });

  it.each([
    ['http://169.254.169.254/latest/meta-data', /169\.254\.169\.254 is in a blocked address range/],
    ['http://metadata.example.com/hook', /resolves to 169\.254\.169\.254/],
    ['http://rebind.example.com/hook', /resolves to 127\.0\.0\.1/],
    ['http://localhost:{port}/pass', /localhost name/],
    ['http://127.0.0.1:{port}/pass', /blocked address range/],
    ['http://[::1]:{port}/pass', /blocked address range/],
    ['http://2130706433:{port}/pass', /blocked address range/],
    ['http://user@127.0.0.1:{port}/pass', /must not contain credentials/],
    ['http://user:pw@example.com/hook', /must not contain credentials/],
    ['ftp://example.com/hook', /must be an http:\/\/ or https:\/\/ URL/],
    ['http://127.0.0.1:{port}/pass?x=1#frag', /fragment/],
  ])('refuses %s before connecting', async (url, reason) => {
    const answer = await strict({
      url: url.replace('{port}', String(port)),
      headers: {},
      timeoutMs: 1000,
      payload: { phase: 'input', request: {}, metadata: {} },
    });
    expect(answer.verdict).toBe(false);
    expect(answer.error).toMatch(/^the webhook url is refused: webhook url /);
    expect(answer.error).toMatch(reason);
    expect(seen).toHaveLength(0);
  });

  it('refuses credentials even for an allowlisted host', async () => {
    const answer = await call('', { url: `http://user@127.0.0.1:${port}/pass` });
    expect(answer.error).toMatch(/must not contain credentials/);
    expect(seen).toHaveLength(0);
  });
});

describe('the webhook check in a guardrail run', () => {
  const ctx: GuardrailContext = {
    phase: 'input',
    requestJson: { messages: [{ role: 'user', content: 'hello' }] },
    metadata: { user: 'u1' },
    provider: 'openai',
  };
  const hook = (path: string, timeout = 10_000): GuardrailCheck => ({
    id: 'webhook',
    parameters: { url: `${base}${path}`, headers: { authorization: 'Bearer t' }, timeout },
  });
  const run = (path: string, deny: boolean, timeout?: number) =>
    runGuardrails([{ type: 'inline', checks: [hook(path, timeout)], deny, async: false }], ctx, {
      webhook: local,
    });

  it('passes when the webhook says so', async () => {
    const outcome = await run('/pass', true);
    expect(outcome).toMatchObject({ verdict: true, denied: false });
    expect(outcome.results[0]!.checks[0]).toMatchObject({ verdict: true, data: { score: 0.1 } });
    expect(seen[0]!.body).toEqual({ phase: 'input', request: ctx.requestJson, metadata: { user: 'u1' } });
    expect(seen[0]!.headers.authorization).toBe('Bearer t');
  });

  it('fails with and without deny', async () => {
    expect(await run('/fail', true)).toMatchObject({ verdict: false, denied: true });
    expect(await run('/fail', false)).toMatchObject({ verdict: false, denied: false });
  });

  it("uses the check's timeout", async () => {
    const outcome = await run('/slow', true, 100);
    expect(outcome.denied).toBe(true);
    expect(outcome.results[0]!.checks[0]).toMatchObject({
      verdict: false,
      explanation: 'the webhook call failed',
      error: 'the webhook did not answer within 100 ms',
    });
  });
});
