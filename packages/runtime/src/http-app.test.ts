import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError, type ErrorBody } from './errors.js';
import type { ReadinessReport } from './health.js';
import { createHttpApp } from './http-app.js';
import { listen, type RunningServer } from './http-server.js';
import { createLogger } from './logger.js';
import { createMetrics } from './metrics.js';

let running: RunningServer | undefined;
afterEach(async () => {
  await running?.close(1_000);
  running = undefined;
});

async function start(
  checks: Record<string, () => Promise<void>>,
  draining = () => false,
  trustProxy?: number | string[],
) {
  const metrics = createMetrics('test');
  const app = createHttpApp({
    ...(trustProxy === undefined ? {} : { trustProxy }),
    log: createLogger({ app: 'test', level: 'silent' }),
    metrics,
    health: { checks, draining, checkTimeoutMs: 200 },
    routes: (router) => {
      router.get('/v1/boom', () => {
        throw new Error('secret internals');
      });
      // A backing service that is down: a real refused connection (nothing listens on port 9).
      router.get('/v1/db-down', async () => {
        await new Promise((_resolve, reject) => {
          const socket = connect(9, '127.0.0.1');
          socket.on('error', reject);
        });
      });
      router.get('/v1/who', (req, res) => {
        res.json({ ip: req.ip, protocol: req.protocol, host: req.host });
      });
      router.get('/v1/teapot', () => {
        throw new AppError(418, 'teapot_error', 'short and stout', { code: 'AB99', param: 'spout' });
      });
    },
  });
  running = await listen(app, 0, '127.0.0.1');
  return `http://127.0.0.1:${running.port}`;
}

describe('createHttpApp', () => {
  it('answers 503 with retry-after, not 500, when a backing service cannot be reached', async () => {
    const base = await start({});
    const res = await fetch(`${base}/v1/db-down`);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    const body = (await res.json()) as ErrorBody;
    expect(body.error).toMatchObject({ type: 'server_error', code: 'service_unavailable' });
    expect(body.error.message).not.toContain('ECONNREFUSED');
  });

  it('answers /healthz, and /readyz only when every check passes', async () => {
    let dbUp = true;
    const base = await start({
      db: async () => {
        if (!dbUp) throw new Error('connection refused');
      },
      slow: () => new Promise<void>((resolve) => setTimeout(resolve, 5)),
    });
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ready: true, checks: { db: { ok: true }, slow: { ok: true } } });
    dbUp = false;
    const notReady = await fetch(`${base}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toMatchObject({
      ready: false,
      checks: { db: { ok: false, error: 'connection refused' } },
    });
  });

  it('fails readiness for a check that hangs, and while draining', async () => {
    let draining = false;
    const base = await start({ hang: () => new Promise<void>(() => undefined) }, () => draining);
    const hung = (await (await fetch(`${base}/readyz`)).json()) as ReadinessReport;
    expect(hung.checks.hang).toEqual({ ok: false, error: 'hang did not answer within 200 ms' });
    running?.server.closeAllConnections();
    draining = true;
    const body = (await (await fetch(`${base}/readyz`)).json()) as ReadinessReport;
    expect(body.checks.shutdown).toEqual({ ok: false, error: 'shutting down' });
  });

  it('exposes Prometheus metrics labelled by route pattern', async () => {
    const base = await start({});
    await fetch(`${base}/healthz`);
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).toMatch(/http_requests_total\{method="GET",route="\/healthz",status="200",app="test"\} 1/);
    expect(text).toContain('process_cpu_user_seconds_total');
  });

  it('renders errors in the envelope, hiding unexpected error messages', async () => {
    const base = await start({});
    const boom = await fetch(`${base}/v1/boom`);
    expect(boom.status).toBe(500);
    expect(await boom.json()).toEqual({
      error: { message: 'internal server error', type: 'server_error', code: 'internal_error', param: null },
    });
    const teapot = await fetch(`${base}/v1/teapot`);
    expect(teapot.status).toBe(418);
    expect(await teapot.json()).toEqual({
      error: { message: 'short and stout', type: 'teapot_error', code: 'AB99', param: 'spout' },
    });
    const missing = await fetch(`${base}/nowhere`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as ErrorBody).error.type).toBe('not_found');
  });

  it('uses a safe incoming trace id as the request id and replaces an unsafe one', async () => {
    const base = await start({});
    const traced = await fetch(`${base}/healthz`, { headers: { 'x-service-trace-id': 'trace-123' } });
    expect(traced.headers.get('x-request-id')).toBe('trace-123');
    const hostile = await fetch(`${base}/healthz`, { headers: { 'x-service-trace-id': 'a b;<script>' } });
    expect(hostile.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('takes the client from X-Forwarded-* only from trusted proxies', async () => {
    const forwarded = {
      'x-forwarded-for': '203.0.113.9',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'admin.example.com',
    };
    const who = async (base: string) => (await fetch(`${base}/v1/who`, { headers: forwarded })).json();
    // Untrusted by default: a client cannot choose the address it is logged under.
    expect(await who(await start({}))).toMatchObject({ ip: '127.0.0.1', protocol: 'http' });
    await running?.close(1_000);
    expect(await who(await start({}, () => false, ['loopback']))).toEqual({
      ip: '203.0.113.9',
      protocol: 'https',
      host: 'admin.example.com',
    });
    await running?.close(1_000);
    // Trusted, but not the sender: a proxy list that does not hold loopback changes nothing.
    expect(await who(await start({}, () => false, ['10.0.0.0/8']))).toMatchObject({
      ip: '127.0.0.1',
      protocol: 'http',
    });
  });
});
