// Redis outages (ARCHITECTURE part 4): request limits fall back to an in-process limiter seeded with
// the last counts, budgets keep their last known state, every degraded decision is counted, and no
// decision waits for Redis longer than LIMITS_REDIS_TIMEOUT_MS.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RateLimitUnit } from '@aigw/proto';
import { test } from '@aigw/testkit';
import { freePort, startLocalRedis } from '@aigw/testkit/services';
import { Redis } from 'ioredis';
import { afterAll, describe, expect } from 'vitest';
import {
  admittedOf,
  attempt,
  makeLimits,
  metricValue,
  ratePolicy,
  refusedOf,
  snapshotOf,
  subject,
  usagePolicy,
} from './limits.test-support.js';

const DEGRADED = 'gateway_limits_degraded_decisions_total';
const usage = { inputTokens: 100, outputTokens: 0, model: 'gpt-4o', provider: 'openai' };
const clients: Redis[] = [];
afterAll(() => {
  for (const c of clients) c.disconnect();
});

/** A client configured as the gateway's (app.ts): no offline queue, one retry. */
function gatewayClient(url: string, extra: Record<string, unknown> = {}): Redis {
  const client = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, ...extra });
  client.on('error', () => {});
  clients.push(client);
  return client;
}

function ready(client: Redis): Promise<void> {
  return client.status === 'ready'
    ? Promise.resolve()
    : new Promise((resolve) => client.once('ready', () => resolve()));
}

async function admitMany(run: () => Promise<unknown>, n: number) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(await attempt(run() as never));
  return out;
}

describe('Redis down', () => {
  test('unreachable Redis: local limiter, degraded admissions, each one counted', async () => {
    const dead = gatewayClient(`redis://127.0.0.1:${await freePort()}`);
    const { limits, registry } = makeLimits(dead);
    const snapshot = snapshotOf(ratePolicy({ value: 3 }));
    const outcomes = await admitMany(() => limits.admit(snapshot, subject({ apiKeyId: 'key-dead' }), {}), 5);
    expect(admittedOf(outcomes)).toHaveLength(3);
    expect(admittedOf(outcomes).every((a) => a.degraded)).toBe(true);
    expect(refusedOf(outcomes).map((e) => e.code)).toEqual(['policy_rate_limited', 'policy_rate_limited']);
    expect(await metricValue(registry, DEGRADED, { operation: 'admit' })).toBe(5);
    expect(
      await metricValue(registry, 'gateway_limits_decisions_total', {
        result: 'rate_limited',
        degraded: 'true',
      }),
    ).toBe(2);
  });

  test('a Redis that accepts but never answers: every decision returns, degraded', {
    timeout: 10_000,
  }, async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
    });
    const port = await freePort();
    await new Promise<void>((resolve) => silent.listen(port, '127.0.0.1', resolve));
    try {
      const stalled = gatewayClient(`redis://127.0.0.1:${port}`, {
        enableReadyCheck: false,
        disableClientInfo: true,
      });
      await ready(stalled);
      const { limits, registry } = makeLimits(stalled, {
        config: { LIMITS_REDIS_TIMEOUT_MS: 50, LIMITS_REDIS_RETRY_MS: 0 },
      });
      const snapshot = snapshotOf(ratePolicy({ value: 100 }), usagePolicy({ creditLimit: 10_000 }));
      // LIMITS_REDIS_RETRY_MS=0: each admission tries Redis again and must give up after 50 ms.
      for (let i = 0; i < 10; i++) {
        const admission = await limits.admit(snapshot, subject({ apiKeyId: 'key-stalled' }), {});
        expect(admission.degraded).toBe(true);
        await admission.settle(usage);
      }
      expect(await metricValue(registry, DEGRADED, { operation: 'admit' })).toBe(10);
      expect(await metricValue(registry, DEGRADED, { operation: 'settle' })).toBe(10);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  test('Redis stopped mid-traffic: counts and exhausted budgets carry over to the fallback', {
    timeout: 30_000,
  }, async () => {
    const server = await startLocalRedis();
    try {
      const client = gatewayClient(server.url);
      await ready(client);
      const { limits, registry } = makeLimits(client);
      const snapshot = snapshotOf(
        ratePolicy({ value: 3, conditions: [{ key: 'metadata.kind', value: 'rate' }] }),
        usagePolicy({ creditLimit: 100, conditions: [{ key: 'metadata.kind', value: 'budget' }] }),
      );
      const rate = subject({ apiKeyId: 'key-stop', metadata: { kind: 'rate' } });
      const budget = subject({ apiKeyId: 'key-stop', metadata: { kind: 'budget' } });
      expect((await limits.admit(snapshot, rate, {})).degraded).toBe(false);
      expect((await limits.admit(snapshot, rate, {})).degraded).toBe(false);
      await (await limits.admit(snapshot, budget, {})).settle(usage);
      await expect(limits.admit(snapshot, budget, {})).rejects.toMatchObject({ status: 412 });

      await server.stop();
      // the budget stays exhausted (last known state), the rate limit allows its third request only
      await expect(limits.admit(snapshot, budget, {})).rejects.toMatchObject({
        status: 412,
        code: 'policy_usage_limit_exhausted',
      });
      const third = await limits.admit(snapshot, rate, {});
      expect(third.degraded).toBe(true);
      await expect(limits.admit(snapshot, rate, {})).rejects.toMatchObject({ status: 429 });
      expect(await metricValue(registry, DEGRADED, { operation: 'admit' })).toBe(3);
      // raising the limit in the snapshot reactivates even without Redis
      const raised = snapshotOf(
        usagePolicy({ creditLimit: 1_000, conditions: [{ key: 'metadata.kind', value: 'budget' }] }),
      );
      await expect(limits.admit(raised, budget, {})).resolves.toMatchObject({ degraded: true });
    } finally {
      await server.stop();
    }
  });

  test('requests admitted locally during an outage are charged to Redis when it returns: the window is not admitted twice', {
    timeout: 30_000,
  }, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'aigw-redis-outage-'));
    let server = await startLocalRedis({ dataDir });
    const port = Number(new URL(server.url).port);
    try {
      const client = gatewayClient(server.url, { retryStrategy: () => 50 });
      await ready(client);
      const { limits, registry } = makeLimits(client, { config: { LIMITS_REDIS_RETRY_MS: 0 } });
      // A daily window: the outage cannot straddle two windows.
      const snapshot = snapshotOf(ratePolicy({ value: 5, unit: RateLimitUnit.RPD }));
      const who = subject({ apiKeyId: 'key-outage' });
      expect((await limits.admit(snapshot, who, {})).degraded).toBe(false);
      expect((await limits.admit(snapshot, who, {})).degraded).toBe(false);

      await server.stop();
      // The local limiter knows the window's count (2): it admits 3 more, degraded, then refuses.
      const during = await admitMany(() => limits.admit(snapshot, who, {}), 4);
      expect(admittedOf(during)).toHaveLength(3);
      expect(admittedOf(during).every((a) => a.degraded)).toBe(true);

      server = await startLocalRedis({ dataDir, port });
      await ready(client);
      // Redis alone would say 2 and admit 3 more; the 3 local admissions are charged first.
      await expect(limits.admit(snapshot, who, {})).rejects.toMatchObject({ status: 429 });
      expect(await metricValue(registry, 'gateway_limits_charged_back_total', {})).toBe(3);
      const [key] = await client.keys('*');
      expect(Number(await client.hget(key as string, 'n'))).toBe(5);
    } finally {
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  test('LIMITS_REDIS_DOWN_*: open drops that kind of limit, closed answers 503', async () => {
    const dead = gatewayClient(`redis://127.0.0.1:${await freePort()}`);
    const snapshot = snapshotOf(ratePolicy({ value: 1 }), usagePolicy({ creditLimit: 0 }));
    const who = subject({ apiKeyId: 'key-modes' });

    const open = makeLimits(dead, {
      config: { LIMITS_REDIS_DOWN_RATE_LIMITS: 'open', LIMITS_REDIS_DOWN_BUDGETS: 'open' },
    });
    for (let i = 0; i < 3; i++) {
      await expect(open.limits.admit(snapshot, who, {})).resolves.toMatchObject({
        degraded: true,
        headers: {},
      });
    }
    const budgetsOnly = makeLimits(dead, { config: { LIMITS_REDIS_DOWN_RATE_LIMITS: 'open' } });
    await expect(budgetsOnly.limits.admit(snapshot, who, {})).rejects.toMatchObject({ status: 412 });

    for (const config of [
      { LIMITS_REDIS_DOWN_RATE_LIMITS: 'closed' as const },
      { LIMITS_REDIS_DOWN_BUDGETS: 'closed' as const, LIMITS_REDIS_DOWN_RATE_LIMITS: 'open' as const },
    ]) {
      const closed = makeLimits(dead, { config });
      const refused = await attempt(closed.limits.admit(snapshot, who, {}));
      expect('refused' in refused && refused.refused).toMatchObject({
        status: 503,
        code: 'limits_unavailable',
        headers: { 'retry-after': '1', 'x-service-gateway-error': 'true' },
      });
      expect(
        await metricValue(closed.registry, 'gateway_limits_decisions_total', {
          result: 'unavailable',
          degraded: 'true',
        }),
      ).toBe(1);
    }
  });

  test('without REDIS_URL the in-process store is the store, not a degradation', async () => {
    const { limits, registry } = makeLimits(undefined);
    const snapshot = snapshotOf(ratePolicy({ value: 1 }));
    const admitted = await limits.admit(snapshot, subject({ apiKeyId: 'key-local' }), {});
    expect(admitted.degraded).toBe(false);
    await expect(limits.admit(snapshot, subject({ apiKeyId: 'key-local' }), {})).rejects.toMatchObject({
      status: 429,
    });
    expect(await metricValue(registry, DEGRADED, { operation: 'admit' })).toBe(0);
  });
});
