// Usage limits (budgets) against real Redis: reservations hold concurrency to the budget,
// exhaustion (412) and its reactivation by a raised limit, periods, cost from pricing, alerts once.
import { ApiKey, EntityKind, Integration, PeriodicReset, UsageAlertKind, UsageLimitType } from '@aigw/proto';
import { test } from '@aigw/testkit';
import { Redis } from 'ioredis';
import { describe, expect } from 'vitest';
import {
  admittedOf,
  attempt,
  entity,
  gpt4oPrice,
  makeLimits,
  ORG,
  refusedOf,
  snapshotOf,
  subject,
  usagePolicy,
} from './limits.test-support.js';

const usage = (inputTokens: number, outputTokens: number) => ({
  inputTokens,
  outputTokens,
  model: 'gpt-4o',
  provider: 'openai',
});

describe('usage limits', () => {
  test('50 concurrent requests against a budget for 5 admit 5, on two replicas', async ({ redis }) => {
    const second = new Redis(redis.url, { keyPrefix: redis.prefix });
    try {
      await Promise.all([redis.client.ping(), second.ping()]);
      // each request reserves 100 tokens (LIMITS_DEFAULT_MAX_TOKENS): the budget covers 5
      const policy = usagePolicy({ creditLimit: 500, alertThreshold: 250 });
      const snapshot = snapshotOf(policy);
      const a = makeLimits(redis.client, { instanceId: 'a' });
      const b = makeLimits(second, { instanceId: 'b' });
      const who = subject({ apiKeyId: 'key-budget' });
      const outcomes = await Promise.all(
        Array.from({ length: 50 }, (_, i) => attempt((i % 2 ? a : b).limits.admit(snapshot, who, {}))),
      );
      const admitted = admittedOf(outcomes);
      expect(admitted).toHaveLength(5);
      for (const error of refusedOf(outcomes)) {
        expect(error).toMatchObject({ status: 429, code: 'usage_limit_in_flight' });
        expect(error.headers['retry-after']).toBe('1');
      }
      // settling the actual usage (100 each) exhausts the budget: 412 naming the policy
      await Promise.all(admitted.map((x) => x.settle(usage(60, 40))));
      const refused = await attempt(a.limits.admit(snapshot, who, {}));
      expect('refused' in refused && refused.refused).toMatchObject({
        status: 412,
        type: 'usage_limit_error',
        code: 'policy_usage_limit_exhausted',
      });
      expect('refused' in refused && refused.refused.message).toContain(policy.id);
      await attempt(b.limits.admit(snapshot, who, {}));

      // one threshold and one exhausted alert over both replicas, whatever the order of settles
      const alerts = [...a.alerts, ...b.alerts];
      expect(alerts.map((x) => x.kind).sort()).toEqual([UsageAlertKind.THRESHOLD, UsageAlertKind.EXHAUSTED]);
      const exhausted = alerts.find((x) => x.kind === UsageAlertKind.EXHAUSTED);
      expect(exhausted).toMatchObject({
        schemaVersion: 1,
        id: `usage_limit_policy:${policy.id}:api_key=key-budget:0:exhausted@500`,
        organisationId: ORG,
        entityKind: EntityKind.USAGE_LIMIT_POLICY,
        entityId: policy.id,
        groupValue: 'api_key=key-budget',
        type: UsageLimitType.TOKENS,
        usage: 500,
        creditLimit: 500,
        alertThreshold: 250,
        periodStartMs: 0,
      });
    } finally {
      second.disconnect();
    }
  });

  test('raising the credit limit reactivates at once; the new limit alerts again', async ({ redis }) => {
    const id = '11111111-0000-4000-8000-000000000001';
    const { limits, alerts } = makeLimits(redis.client);
    const who = subject({ apiKeyId: 'key-raise' });
    const before = snapshotOf(usagePolicy({ creditLimit: 100 }, { id }));
    await (await limits.admit(before, who, {})).settle(usage(80, 30));
    await expect(limits.admit(before, who, {})).rejects.toMatchObject({ status: 412 });

    const raised = snapshotOf(usagePolicy({ creditLimit: 200 }, { id, version: 2 }));
    const again = await limits.admit(raised, who, {});
    await again.settle(usage(50, 50));
    await expect(limits.admit(raised, who, {})).rejects.toMatchObject({ status: 412 });
    expect(alerts.map((x) => [x.kind, x.creditLimit, x.usage])).toEqual([
      [UsageAlertKind.EXHAUSTED, 100, 110],
      [UsageAlertKind.EXHAUSTED, 200, 210],
    ]);
    // Distinct ids: JetStream (Nats-Msg-Id) and the alert store must not drop the second as a duplicate.
    expect(alerts.map((x) => x.id)).toEqual([
      `usage_limit_policy:${id}:api_key=key-raise:0:exhausted@100`,
      `usage_limit_policy:${id}:api_key=key-raise:0:exhausted@200`,
    ]);
  });

  test('a new period starts from zero, and alerts again', async ({ redis }) => {
    // Periods follow the gateway clock (moved here); counters expire by Redis time, so stay near it.
    const reset = Date.now() + 3_600_000;
    let now = Date.now();
    const { limits, alerts } = makeLimits(redis.client, { now: () => now });
    const snapshot = snapshotOf(
      usagePolicy({ creditLimit: 100, periodicResetDays: 7, nextUsageResetAtMs: reset }),
    );
    const who = subject({ apiKeyId: 'key-period' });
    await (await limits.admit(snapshot, who, {})).settle(usage(100, 0));
    await expect(limits.admit(snapshot, who, {})).rejects.toMatchObject({ status: 412 });
    now = reset;
    await (await limits.admit(snapshot, who, {})).settle(usage(100, 0));
    await expect(limits.admit(snapshot, who, {})).rejects.toMatchObject({ status: 412 });
    expect(alerts.map((x) => x.periodStartMs)).toEqual([reset - 7 * 86_400_000, reset]);
    expect(alerts[1]?.id).toMatch(new RegExp(`:${reset}:exhausted@100$`));
  });

  test('cost budgets reserve from max_tokens and price, and charge the priced actual usage', async ({
    redis,
  }) => {
    // 100 in + 100 out at 2.5 / 10 USD per million = 1250 micro-USD per request: the budget covers 2
    const snapshot = snapshotOf(gpt4oPrice(), usagePolicy({ type: UsageLimitType.COST, creditLimit: 2_500 }));
    const { limits, alerts } = makeLimits(redis.client);
    const who = subject({ apiKeyId: 'key-cost' });
    const estimate = { maxTokens: 100, inputTokensGuess: 100 };
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, () => attempt(limits.admit(snapshot, who, estimate))),
    );
    const admitted = admittedOf(outcomes);
    expect(admitted).toHaveLength(2);
    // actual: 1000 in (400 cached) + 10 out = 600*2.5 + 400*1.25 + 10*10 = 2100 micros
    await admitted[0]?.settle({ ...usage(1000, 10), cachedInputTokens: 400 });
    await admitted[1]?.settle(undefined);
    const third = await limits.admit(snapshot, who, { maxTokens: 10, inputTokensGuess: 10 });
    await third.settle(usage(100, 100));
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      kind: UsageAlertKind.EXHAUSTED,
      type: UsageLimitType.COST,
      usage: 3_350,
    });
    const refused = await attempt(limits.admit(snapshot, who, estimate));
    expect('refused' in refused && refused.refused.message).toContain('limit 0.0025 USD');
  });

  test('a reservation never settled expires with its TTL', async ({ redis }) => {
    const { limits } = makeLimits(redis.client, { config: { LIMITS_RESERVATION_TTL_MS: 1_000 } });
    const snapshot = snapshotOf(usagePolicy({ creditLimit: 100 }));
    const who = subject({ apiKeyId: 'key-ttl' });
    await limits.admit(snapshot, who, {}); // a gateway that crashes before settling
    await expect(limits.admit(snapshot, who, {})).rejects.toMatchObject({ code: 'usage_limit_in_flight' });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await expect(limits.admit(snapshot, who, {})).resolves.toMatchObject({ degraded: false });
  });

  test('limits on entities: api key tokens, integration per workspace; USAGE_LIMITS_ENABLED=OFF', async ({
    redis,
  }) => {
    const apiKey = entity(
      EntityKind.API_KEY,
      {
        $case: 'apiKey',
        value: ApiKey.fromPartial({
          usageLimits: [
            { type: UsageLimitType.TOKENS, creditLimit: 50, periodicReset: PeriodicReset.MONTHLY },
          ],
        }),
      },
      { id: 'key-entity', workspaceId: 'ws-entity' },
    );
    const snapshot = snapshotOf();
    const { limits, alerts } = makeLimits(redis.client);
    const who = subject({ apiKeyId: 'key-entity', workspaceId: 'ws-entity', apiKey });
    await (await limits.admit(snapshot, who, {})).settle(usage(30, 30));
    const refused = await attempt(limits.admit(snapshot, who, {}));
    expect('refused' in refused && refused.refused).toMatchObject({
      status: 412,
      code: 'api_key_usage_limit_exhausted',
    });
    expect(alerts[0]).toMatchObject({
      entityKind: EntityKind.API_KEY,
      entityId: 'key-entity',
      groupValue: 'type=tokens',
      workspaceId: 'ws-entity',
    });

    const integration = entity(
      EntityKind.INTEGRATION,
      { $case: 'integration', value: Integration.fromPartial({}) },
      { id: 'int-1' },
    );
    const perWorkspace = {
      integrationId: 'int-1',
      workspaceId: 'ws-entity',
      rateLimits: [],
      usageLimits: [
        {
          type: UsageLimitType.TOKENS,
          creditLimit: 10,
          periodicReset: 0,
          periodicResetDays: 0,
          nextUsageResetAtMs: 0,
        },
      ],
    };
    const viaIntegration = subject({ apiKeyId: 'key-int', integration, integrationWorkspace: perWorkspace });
    await (await limits.admit(snapshot, viaIntegration, {})).settle(usage(10, 0));
    const byIntegration = await attempt(limits.admit(snapshot, viaIntegration, {}));
    expect('refused' in byIntegration && byIntegration.refused.code).toBe(
      'integration_usage_limit_exhausted',
    );
    expect(alerts[1]?.groupValue).toBe('workspace_id=ws-entity&type=tokens');

    const off = makeLimits(redis.client, { config: { USAGE_LIMITS_ENABLED: false } });
    await expect(off.limits.admit(snapshot, who, {})).resolves.toMatchObject({ headers: {} });
  });
});
