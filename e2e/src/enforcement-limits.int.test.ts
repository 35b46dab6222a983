// Issue 7 acceptance, end to end: rate-limit and usage-limit policies and key limits made through
// the admin API are enforced across two gateway replicas sharing Redis, and a Redis outage degrades
// decisions instead of hanging requests. Real Postgres, NATS and Redis (its own, so it can be killed).
// One stack serves the whole file; each test makes its own keys and policies so tests stay apart.
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { chat, mapLimit, pollUntil, type Reply } from './enforcement-client.test-support.js';
import { expectGatewayError, onBothReplicas, replicas } from './enforcement-expect.test-support.js';
import { REDIS_TIMEOUT_MS, test } from './enforcement-stack.test-support.js';

/** Slack past the Redis timeout for the rest of a request's path on a busy 2-core machine. */
const ABORT_MARGIN_MS = 2_000;
/** The gateway's counter of limit decisions taken without Redis (apps/gateway/src/limits/metrics.ts). */
const DEGRADED_METRIC = 'gateway_limits_degraded_decisions_total';

/** Sum of the degraded-decision counter over its label sets in a replica's /metrics. */
async function degradedCount(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${DEGRADED_METRIC}{`) || line.startsWith(`${DEGRADED_METRIC} `)) {
      sum += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return sum;
}

/** Rate windows are fixed: start a burst away from a minute edge so one window sees all of it. */
async function awayFromMinuteEdge(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 200));
}

describe('gateways enforce limits from the control plane (issue 7)', () => {
  test('a requests policy of 20 rpm per key admits exactly 20 of 60 concurrent requests over both replicas', async ({
    e2e,
  }) => {
    const { stack, tenant } = e2e;
    const run = randomUUID();
    // The policy matches only requests carrying this run's metadata, so the probes that wait for
    // the key below are not counted. Changes apply in order: once the key (created after the
    // policy) works on a replica, the policy is there too.
    await stack.admin.post('/policies/rate-limits', {
      name: '20 rpm per key',
      type: 'requests',
      unit: 'rpm',
      value: 20,
      conditions: [{ key: 'metadata.run', value: run }],
      group_by: [{ key: 'api_key' }],
      workspace_id: tenant.workspaceId,
    });
    const { key } = await stack.admin.createKey(tenant.workspaceId, 'twenty rpm');
    await onBothReplicas(e2e, key, 200, 'key accepted');

    await awayFromMinuteEdge();
    const replies = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        chat(stack.gatewayBase(replicas[i % 2] ?? 0), {
          key,
          provider: tenant.provider,
          metadata: { run },
        }),
      ),
    );
    const admitted = replies.filter((r) => r.status === 200);
    const limited = replies.filter((r) => r.status === 429);
    expect(admitted).toHaveLength(20);
    expect(limited).toHaveLength(40);
    for (const reply of limited) {
      expectGatewayError(reply, 429, 'rate_limit_error', ['policy_rate_limited']);
      expect(Number(reply.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });

  test('a tokens policy stops admitting once the charged tokens pass the limit', async ({ e2e }) => {
    const { stack, tenant } = e2e;
    const run = randomUUID();
    const { id, key } = await stack.admin.createKey(tenant.workspaceId, 'tokens rpm');
    await onBothReplicas(e2e, key, 200, 'key accepted');
    const probe = await chat(stack.gatewayBase(0), { key, provider: tenant.provider });
    const perRequest: number = probe.body.usage.total_tokens;
    expect(perRequest).toBeGreaterThan(0);
    const limit = 3 * perRequest + 1;
    await stack.admin.post('/policies/rate-limits', {
      name: 'tokens per key',
      type: 'tokens',
      unit: 'rpm',
      value: limit,
      conditions: [{ key: 'metadata.run', value: run }],
      group_by: [{ key: 'api_key' }],
      workspace_id: tenant.workspaceId,
    });
    // A later change on the same key proves the policy (written before it) reached both replicas.
    await stack.admin.put(`/api-keys/${id}`, { status: 'disabled' });
    await onBothReplicas(e2e, key, 401, 'key disabled');
    await stack.admin.put(`/api-keys/${id}`, { status: 'active' });
    await onBothReplicas(e2e, key, 200, 'key enabled again');
    await awayFromMinuteEdge();

    let charged = 0;
    let admittedPastLimit = 0;
    let firstRefusal: Reply | undefined;
    for (let i = 0; i < 30 && !firstRefusal; i++) {
      const reply = await chat(stack.gatewayBase(replicas[i % 2] ?? 0), {
        key,
        provider: tenant.provider,
        metadata: { run },
      });
      if (reply.status === 200) {
        if (charged >= limit) admittedPastLimit++;
        charged += reply.body.usage.total_tokens;
      } else firstRefusal = reply;
    }
    expect(firstRefusal, 'no request was refused').toBeDefined();
    expectGatewayError(firstRefusal as Reply, 429, 'rate_limit_error', ['policy_rate_limited']);
    // Admission is on usage so far: nothing is refused before the limit is passed, and once the
    // charge of the request that passed it has landed, nothing more is admitted.
    expect(charged).toBeGreaterThanOrEqual(limit);
    expect(admittedPastLimit).toBeLessThanOrEqual(1);
    for (const index of replicas) {
      const again = await chat(stack.gatewayBase(index), {
        key,
        provider: tenant.provider,
        metadata: { run },
      });
      expectGatewayError(again, 429, 'rate_limit_error', ['policy_rate_limited']);
    }
  });

  test('50 concurrent requests against a usage budget that covers 5 admit at most 5', async ({ e2e }) => {
    const { stack, tenant } = e2e;
    const run = randomUUID();
    const { id, key } = await stack.admin.createKey(tenant.workspaceId, 'budget of five');
    await onBothReplicas(e2e, key, 200, 'key accepted');
    const probe = await chat(stack.gatewayBase(0), { key, provider: tenant.provider });
    // The mock echoes the prompt cut at max_tokens, so every request costs exactly this much.
    const perRequest: number = probe.body.usage.total_tokens;
    await stack.admin.post('/policies/usage-limits', {
      name: 'five requests of tokens',
      type: 'tokens',
      credit_limit: 5 * perRequest,
      conditions: [{ key: 'metadata.run', value: run }],
      group_by: [{ key: 'api_key' }],
      workspace_id: tenant.workspaceId,
    });
    await stack.admin.put(`/api-keys/${id}`, { status: 'disabled' });
    await onBothReplicas(e2e, key, 401, 'key disabled');
    await stack.admin.put(`/api-keys/${id}`, { status: 'active' });
    await onBothReplicas(e2e, key, 200, 'key enabled again');

    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        chat(stack.gatewayBase(replicas[i % 2] ?? 0), { key, provider: tenant.provider, metadata: { run } }),
      ),
    );
    const admitted = replies.filter((r) => r.status === 200);
    expect(admitted.length).toBeGreaterThan(0);
    // Reservations made before the call hold the budget: in-flight requests cannot overspend it.
    expect(admitted.length).toBeLessThanOrEqual(5);
    // The others are refused as exhausted (412) or, while admitted requests hold the rest of the
    // budget, as reserved by requests in flight (429).
    for (const reply of replies.filter((r) => r.status !== 200)) {
      if (reply.status === 412)
        expectGatewayError(reply, 412, 'usage_limit_error', ['policy_usage_limit_exhausted']);
      else expectGatewayError(reply, 429, 'rate_limit_error', ['usage_limit_in_flight']);
    }
    if (admitted.length === 5) {
      // Five settled requests spent the budget: it now reads exhausted (once the last settles).
      const afterwards = await pollUntil(
        () => chat(stack.gatewayBase(1), { key, provider: tenant.provider, metadata: { run } }),
        (reply) => reply.status !== 429,
        { what: 'budget settled' },
      );
      expectGatewayError(afterwards.value, 412, 'usage_limit_error', ['policy_usage_limit_exhausted']);
    }
  });

  test("raising a key's credit limit reactivates it once exhausted, without a restart", async ({ e2e }) => {
    const { stack, tenant } = e2e;
    const { id, key } = await stack.admin.createKey(tenant.workspaceId, 'exhausted', {
      usage_limits: [{ type: 'tokens', credit_limit: 40 }],
    });
    await onBothReplicas(e2e, key, 200, 'key accepted');
    // Spend until the gateways call the key exhausted (its usage reached the limit).
    // A request sent before the previous one settled may meet its reservation (429 in flight).
    const exhausted = await pollUntil(
      () => chat(stack.gatewayBase(0), { key, provider: tenant.provider }),
      (reply) => reply.status !== 200 && reply.status !== 429,
      { what: 'key exhausted', intervalMs: 0 },
    );
    expectGatewayError(exhausted.value, 412, 'usage_limit_error', ['api_key_usage_limit_exhausted']);
    await onBothReplicas(e2e, key, 412, 'exhausted on both');

    await stack.admin.put(`/api-keys/${id}`, { usage_limits: [{ type: 'tokens', credit_limit: 1_000_000 }] });
    await onBothReplicas(e2e, key, 200, 'key reactivated');
  });

  test('with Redis hung then killed mid-load no request hangs past the Redis timeout, and degraded decisions are counted', async ({
    e2e,
  }) => {
    const { stack, tenant } = e2e;
    const run = randomUUID();
    await stack.admin.post('/policies/rate-limits', {
      name: 'checked in Redis',
      type: 'requests',
      unit: 'rpm',
      value: 1_000_000,
      conditions: [{ key: 'metadata.run', value: run }],
      group_by: [{ key: 'api_key' }],
      workspace_id: tenant.workspaceId,
    });
    const { key } = await stack.admin.createKey(tenant.workspaceId, 'under load', {
      usage_limits: [{ type: 'tokens', credit_limit: 1_000_000 }],
    });
    await onBothReplicas(e2e, key, 200, 'key accepted');
    const before = await Promise.all(replicas.map((index) => degradedCount(stack.gatewayBase(index))));

    const total = 160;
    let done = 0;
    let killed: Promise<void> | undefined;
    const replies = await mapLimit(
      Array.from({ length: total }, (_, i) => i),
      8,
      async (i) => {
        // A hang shows as the client's own abort (an AbortError fails the test), not as a duration.
        const reply = await chat(stack.gatewayBase(replicas[i % 2] ?? 0), {
          key,
          provider: tenant.provider,
          metadata: { run },
          abortMs: REDIS_TIMEOUT_MS + ABORT_MARGIN_MS,
        });
        // First Redis hangs (connections open, no answer: the timeout must cut the wait), then it
        // dies (connections reset).
        if (++done === total / 4) stack.freezeRedis();
        if (done === total / 2) killed = stack.killRedis();
        return reply;
      },
    );
    await killed;
    expect(replies).toHaveLength(total);
    for (const reply of replies) expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    // Decisions made without Redis say so on the response.
    const flagged = replies.filter((r) => r.headers.get('x-service-limits-degraded') === 'true');
    expect(flagged.length).toBeGreaterThan(0);

    const after = await Promise.all(replicas.map((index) => degradedCount(stack.gatewayBase(index))));
    const degraded = after.reduce((a, b) => a + b, 0) - before.reduce((a, b) => a + b, 0);
    expect(degraded).toBeGreaterThan(0);
  });
});
