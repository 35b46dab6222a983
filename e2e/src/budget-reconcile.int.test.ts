// Issue 23 item 7, budgets across the stack: a key's token budget spent partly while the gateways'
// Redis is down (the gateway charges locally, degraded) is corrected once Redis is back: the
// logger's usage reconciliation (REDIS_URL set, as `pnpm start` now sets it) raises the key's
// counter to what the ledger holds, so the budget is not admitted again. Real Postgres, NATS and a
// Redis of the test's own, stopped and started on the same port.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestRedis, test } from '@aigw/testkit';
import { freePort, startLocalRedis } from '@aigw/testkit/services';
import { describe, expect } from 'vitest';
import { chat, pollUntil } from './enforcement-client.test-support.js';
import { chatUntilServed, createTenant, startLogsStack } from './logs-stack.test-support.js';

/** The usage a key's budget counter holds in Redis (field `u` of `lim:{org}:u:api_key:<id>:tokens:<period>`). */
async function counterOf(redisUrl: string, keyId: string): Promise<number> {
  const redis = await createTestRedis(redisUrl);
  try {
    const keys = await redis.client.keys(`lim:*:u:api_key:${keyId}:tokens:*`);
    let total = 0;
    // The client prefixes KEYS of commands with its test prefix; ARGV is passed as is.
    for (const key of keys.filter((k) => /:tokens:\d+$/.test(k)))
      total += Number(await redis.client.eval("return redis.call('HGET', ARGV[1], 'u')", 0, key)) || 0;
    return total;
  } finally {
    await redis.client.quit();
  }
}

describe('budgets through a Redis outage', () => {
  test('usage charged while Redis was down is written back by the logger: the budget is not admitted twice', {
    timeout: 120_000,
  }, async ({ pg, nats }) => {
    const dataDir = await mkdtemp(join(tmpdir(), 'aigw-budget-reconcile-'));
    const port = await freePort();
    let redis = await startLocalRedis({ dataDir, port });
    const stack = await startLogsStack(
      { pg, nats },
      { REDIS_URL: redis.url, LIMITS_REDIS_TIMEOUT_MS: '300', LIMITS_REDIS_RETRY_MS: '0' },
      {},
      { REDIS_URL: redis.url, USAGE_RECONCILE_INTERVAL_MS: '200' },
    );
    try {
      const tenant = await createTenant(stack.admin, stack.mock, 'Budget reconcile');
      const probe = await stack.admin.createKey(tenant.workspaceId, 'probe');
      await chatUntilServed(stack, tenant, probe.key, 'budget-reconcile-warmup');
      // The mock echoes the prompt cut at max_tokens: every request costs the same tokens.
      const first = await chat(stack.gatewayBase, { key: probe.key, provider: tenant.provider });
      const perRequest = Number((first.body as { usage: { total_tokens: number } }).usage.total_tokens);
      expect(perRequest).toBeGreaterThan(0);

      const { id, key } = await stack.admin.createKey(tenant.workspaceId, 'six requests', {
        usage_limits: [{ type: 'tokens', credit_limit: 6 * perRequest }],
      });
      const send = () => chat(stack.gatewayBase, { key, provider: tenant.provider });
      // Two requests with Redis up (the first once the key reached the gateway).
      await pollUntil(send, (reply) => reply.status === 200, { what: 'the budget key served' });
      expect((await send()).status).toBe(200);
      await pollUntil(
        () => counterOf(redis.url, id),
        (used) => used === 2 * perRequest,
        { what: 'two requests charged in Redis' },
      );

      // Three more with Redis down: admitted by the gateway's local accounting, degraded.
      await redis.stop();
      for (let i = 0; i < 3; i++) {
        const reply = await send();
        expect(reply.status).toBe(200);
        expect(reply.headers.get('x-service-limits-degraded')).toBe('true');
      }

      // Redis is back without the outage's usage; the ledger (from the request events) has all five.
      redis = await startLocalRedis({ dataDir, port });
      await pollUntil(
        () => stack.admin.call('GET', `/logs?api_key_id=${id}&include_total=true`),
        (reply) => reply.status === 200 && reply.body.total === 5,
        { what: 'the five requests logged', boundMs: 30_000 },
      );
      // The reconciliation raises the key's counter to the ledger's five requests.
      await pollUntil(
        () => counterOf(redis.url, id),
        (used) => used >= 5 * perRequest,
        { what: 'the outage usage written back to Redis', boundMs: 30_000 },
      );

      // So one request is left (6 of 6), then the key is exhausted; without the write-back Redis
      // would have admitted four more (or six, had it lost its data).
      let admittedAfter = 0;
      for (let i = 0; i < 6; i++) {
        const reply = await send();
        if (reply.status !== 200) {
          expect(reply.status).toBe(412);
          expect((reply.body as { error: { code: string } }).error.code).toBe(
            'api_key_usage_limit_exhausted',
          );
          break;
        }
        admittedAfter++;
      }
      expect(admittedAfter).toBe(1);
    } finally {
      await stack.close();
      await redis.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
