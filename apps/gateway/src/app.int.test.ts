import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, waitFor, waitForDependency } from '@aigw/testkit';
import { startRestartableNats } from '@aigw/testkit/services';
import { describe, expect } from 'vitest';
import { createApp, type GatewayApp } from './app.js';
import { loadGatewayConfig } from './config.js';

function gateway(env: Record<string, string>): GatewayApp {
  return createApp(loadGatewayConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...env }));
}

describe('gateway app', () => {
  test('is ready once Redis and NATS answer, serves metrics, and stops cleanly', async ({ redis, nats }) => {
    const app = gateway({ REDIS_URL: redis.url, NATS_URL: nats.url });
    await app.start();
    const base = `http://127.0.0.1:${app.port}`;
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: 'ok' });
    const ready = await waitFor(async () => {
      const res = await fetch(`${base}/readyz`);
      return res.status === 200 ? ((await res.json()) as unknown) : undefined;
    }, 'readiness');
    // Redis and NATS answer: nothing is degraded (they never gate readiness, next test).
    expect(ready).toEqual({ ready: true, checks: {} });
    const up = await (await fetch(`${base}/metrics`)).text();
    expect(up).toContain('dependency_up{dependency="redis",app="gateway"} 1');
    expect(up).toContain('dependency_up{dependency="nats",app="gateway"} 1');
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toContain('http_requests_total{method="GET",route="/readyz",status="200",app="gateway"}');

    const noProvider = await fetch(`${base}/v1/chat/completions`, { method: 'POST', body: '{}' });
    expect(noProvider.status).toBe(400);
    expect(noProvider.headers.get('x-service-gateway-error')).toBe('true');
    expect((await noProvider.json()) as unknown).toMatchObject({
      error: { code: 'missing_provider', param: 'x-service-provider', type: 'invalid_request_error' },
    });

    await app.stop();
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  });

  test('starts while Redis is unreachable, stays ready (it serves degraded) and reports it', async () => {
    // Port 9 (discard) is not listening on loopback: connection refused.
    const app = gateway({ REDIS_URL: 'redis://127.0.0.1:9' });
    await app.start();
    try {
      const res = await fetch(`http://127.0.0.1:${app.port}/readyz`);
      // Readiness says whether this replica can serve: a shared Redis outage must not pull every
      // replica out of the load balancer at once.
      expect(res.status).toBe(200);
      const body = (await res.json()) as { ready: boolean; degraded: Record<string, { ok: boolean }> };
      expect(body.ready).toBe(true);
      expect(body.degraded.redis?.ok).toBe(false);
      const metrics = await (await fetch(`http://127.0.0.1:${app.port}/metrics`)).text();
      expect(metrics).toContain('dependency_up{dependency="redis",app="gateway"} 0');
      expect((await fetch(`http://127.0.0.1:${app.port}/healthz`)).status).toBe(200);
    } finally {
      await app.stop();
    }
  });

  test('stays ready through a NATS outage (events spool), reporting it, and reports NATS back', {
    timeout: 60_000,
  }, async () => {
    const natsServer = await startRestartableNats();
    const spoolDir = await mkdtemp(join(tmpdir(), 'gw-nats-outage-'));
    const app = gateway({ NATS_URL: natsServer.url, EVENT_SPOOL_DIR: spoolDir });
    await app.start();
    const base = `http://127.0.0.1:${app.port}`;
    try {
      await waitForDependency(base, 'gateway', 'nats', true);
      await natsServer.stop();
      await waitForDependency(base, 'gateway', 'nats', false);
      // A shared NATS outage must not pull every replica out of the load balancer at once.
      const res = await fetch(`${base}/readyz`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { ready: boolean; degraded: Record<string, { ok: boolean }> };
      expect(body.ready).toBe(true);
      expect(body.degraded.nats?.ok).toBe(false);
      await natsServer.start();
      await waitForDependency(base, 'gateway', 'nats', true);
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
    } finally {
      await app.stop();
      await natsServer.close();
      await rm(spoolDir, { recursive: true, force: true });
    }
  });

  test('starts while NATS is unreachable, serves degraded, connects once NATS answers', {
    timeout: 60_000,
  }, async () => {
    const natsServer = await startRestartableNats();
    await natsServer.stop();
    const spoolDir = await mkdtemp(join(tmpdir(), 'gw-nats-late-'));
    const app = gateway({ NATS_URL: natsServer.url, EVENT_SPOOL_DIR: spoolDir });
    await app.start();
    const base = `http://127.0.0.1:${app.port}`;
    try {
      const res = await fetch(`${base}/readyz`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { degraded?: Record<string, { ok: boolean; error?: string }> };
      expect(body.degraded?.nats?.error).toMatch(/not connected yet/);
      await natsServer.start();
      await waitForDependency(base, 'gateway', 'nats', true, 30_000);
    } finally {
      await app.stop();
      await natsServer.close();
      await rm(spoolDir, { recursive: true, force: true });
    }
  });

  test('standalone without Redis or NATS is ready with no dependency checks', async () => {
    const app = gateway({});
    await app.start();
    try {
      const res = await fetch(`http://127.0.0.1:${app.port}/readyz`);
      expect(await res.json()).toEqual({ ready: true, checks: {} });
    } finally {
      await app.stop();
    }
  });
});
