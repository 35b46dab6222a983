// Rate limits against real Redis: exact request counts across two replicas, all-or-nothing
// charging, token limits charged at settle, entity limits, headers and the feature flag.
import { EntityKind, RateLimitType, RateLimitUnit, UsageAlertKind, Workspace } from '@aigw/proto';
import { test } from '@aigw/testkit';
import { Redis } from 'ioredis';
import { describe, expect } from 'vitest';
import {
  admittedOf,
  attempt,
  entity,
  freshWindow,
  makeLimits,
  ratePolicy,
  refusedOf,
  snapshotOf,
  subject,
} from './limits.test-support.js';

describe('requests rate limits', () => {
  test('20 rpm per key admits exactly 20 of 60 concurrent admissions on two replicas', async ({ redis }) => {
    const second = new Redis(redis.url, { keyPrefix: redis.prefix });
    try {
      await Promise.all([redis.client.ping(), second.ping()]);
      await freshWindow(redis.client, 60_000);
      const policy = ratePolicy({ value: 20 });
      const snapshot = snapshotOf(policy);
      const a = makeLimits(redis.client, { instanceId: 'a' });
      const b = makeLimits(second, { instanceId: 'b' });
      const who = subject({ apiKeyId: 'key-concurrent' });
      const outcomes = await Promise.all(
        Array.from({ length: 60 }, (_, i) => attempt((i % 2 ? a : b).limits.admit(snapshot, who, {}))),
      );
      expect(admittedOf(outcomes)).toHaveLength(20);
      expect(admittedOf(outcomes).every((x) => !x.degraded)).toBe(true);
      const refused = refusedOf(outcomes);
      expect(refused).toHaveLength(40);
      for (const error of refused) {
        expect(error.status).toBe(429);
        expect(error.code).toBe('policy_rate_limited');
        expect(error.type).toBe('rate_limit_error');
        expect(error.message).toContain(policy.id);
        expect(error.message).toContain('api_key=key-concurrent');
        expect(Number(error.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expect(Number(error.headers['retry-after'])).toBeLessThanOrEqual(60);
        expect(error.headers['x-ratelimit-remaining-requests']).toBe('0');
        expect(error.headers['x-service-gateway-error']).toBe('true');
      }
      // another group of the same policy has its own counter
      await expect(a.limits.admit(snapshot, subject({ apiKeyId: 'key-other' }), {})).resolves.toBeDefined();
    } finally {
      second.disconnect();
    }
  });

  test('a refusing rate limit raises one alert per limit and window on each replica, all with one id (spec 6)', async ({
    redis,
  }) => {
    const second = new Redis(redis.url, { keyPrefix: redis.prefix });
    try {
      await Promise.all([redis.client.ping(), second.ping()]);
      await freshWindow(redis.client, 60_000);
      const policy = ratePolicy({ value: 3 });
      const snapshot = snapshotOf(policy);
      const a = makeLimits(redis.client, { instanceId: 'a' });
      const b = makeLimits(second, { instanceId: 'b' });
      const who = subject({ apiKeyId: 'key-alerting' });
      const outcomes = [];
      for (let i = 0; i < 12; i++)
        outcomes.push(await attempt((i % 2 ? a : b).limits.admit(snapshot, who, {})));
      expect(admittedOf(outcomes)).toHaveLength(3);
      expect(refusedOf(outcomes)).toHaveLength(9);
      // Nine refusals, two replicas: one event each, the same id (JetStream and the store keep one).
      expect(a.alerts).toHaveLength(1);
      expect(b.alerts).toHaveLength(1);
      expect(a.alerts[0]?.id).toBe(b.alerts[0]?.id);
      expect(a.alerts[0]).toMatchObject({
        kind: UsageAlertKind.RATE_LIMITED,
        entityKind: EntityKind.RATE_LIMIT_POLICY,
        entityId: policy.id,
        groupValue: 'api_key=key-alerting',
        rateType: RateLimitType.REQUESTS,
        windowMs: 60_000,
        creditLimit: 3,
        usage: 3,
      });
      expect(a.alerts[0]?.id).toContain(`:rate_limited@3/requests/60000`);
      // Admissions alone raise none.
      const quiet = makeLimits(redis.client, { instanceId: 'c' });
      await quiet.limits.admit(snapshot, subject({ apiKeyId: 'key-quiet' }), {});
      expect(quiet.alerts).toEqual([]);
    } finally {
      second.disconnect();
    }
  });

  test('headers report the tightest limit: limit, remaining after this request, reset seconds', async ({
    redis,
  }) => {
    await freshWindow(redis.client, 60_000);
    const snapshot = snapshotOf(
      ratePolicy({ value: 5 }),
      ratePolicy({ value: 100, unit: RateLimitUnit.RPH }),
    );
    const { limits } = makeLimits(redis.client);
    const who = subject({ apiKeyId: 'key-headers' });
    const first = await limits.admit(snapshot, who, {});
    expect(first.headers['x-ratelimit-limit-requests']).toBe('5');
    expect(first.headers['x-ratelimit-remaining-requests']).toBe('4');
    const reset = Number(first.headers['x-ratelimit-reset-requests']);
    expect(reset).toBeGreaterThanOrEqual(1);
    expect(reset).toBeLessThanOrEqual(60);
    const second = await limits.admit(snapshot, who, {});
    expect(second.headers['x-ratelimit-remaining-requests']).toBe('3');
    expect(second.headers['x-ratelimit-limit-tokens']).toBeUndefined();
  });

  test('all or nothing: a refusal by one limit charges none of the others', async ({ redis }) => {
    await freshWindow(redis.client, 60_000);
    const perWorkspace = ratePolicy({ value: 5, groupBy: [{ key: 'workspace_id' }] });
    const keyOne = ratePolicy({ value: 2, conditions: [{ key: 'api_key', value: 'key-aon-1' }] });
    const snapshot = snapshotOf(perWorkspace, keyOne);
    const { limits } = makeLimits(redis.client);
    const one = subject({ apiKeyId: 'key-aon-1', workspaceId: 'ws-aon' });
    await limits.admit(snapshot, one, {});
    await limits.admit(snapshot, one, {});
    for (let i = 0; i < 3; i++) {
      const refused = await attempt(limits.admit(snapshot, one, {}));
      expect('refused' in refused && refused.refused.message).toContain(keyOne.id);
    }
    // only the two admitted requests count in the workspace policy: 5 - 2 - this one = 2
    const two = await limits.admit(snapshot, subject({ apiKeyId: 'key-aon-2', workspaceId: 'ws-aon' }), {});
    expect(two.headers['x-ratelimit-remaining-requests']).toBe('2');
  });

  test('conditions select the requests; archived and other-workspace policies do not apply', async ({
    redis,
  }) => {
    await freshWindow(redis.client, 60_000);
    const prodOnly = ratePolicy({ value: 1, conditions: [{ key: 'metadata.env', value: 'prod' }] });
    const archived = ratePolicy({ value: 0, status: 3 });
    const elsewhere = ratePolicy({ value: 0 }, { workspaceId: 'another-workspace' });
    const snapshot = snapshotOf(prodOnly, archived, elsewhere);
    const { limits } = makeLimits(redis.client);
    const dev = subject({ apiKeyId: 'key-cond', metadata: { env: 'dev' } });
    for (let i = 0; i < 3; i++) expect((await limits.admit(snapshot, dev, {})).headers).toEqual({});
    const prod = subject({ apiKeyId: 'key-cond', metadata: { env: 'prod' } });
    await limits.admit(snapshot, prod, {});
    await expect(limits.admit(snapshot, prod, {})).rejects.toMatchObject({ status: 429 });
  });

  test('POLICY_ENABLED=OFF ignores policies but not limits set on entities', async ({ redis }) => {
    await freshWindow(redis.client, 60_000);
    const workspace = entity(
      EntityKind.WORKSPACE,
      {
        $case: 'workspace',
        value: Workspace.fromPartial({
          rateLimits: [{ type: RateLimitType.REQUESTS, unit: RateLimitUnit.RPM, value: 2 }],
        }),
      },
      { id: 'ws-flag' },
    );
    const snapshot = snapshotOf(ratePolicy({ value: 0 }));
    const { limits } = makeLimits(redis.client, { config: { POLICY_ENABLED: false } });
    const who = subject({ apiKeyId: 'key-flag', workspaceId: 'ws-flag', workspace });
    await limits.admit(snapshot, who, {});
    await limits.admit(snapshot, who, {});
    const refused = await attempt(limits.admit(snapshot, who, {}));
    expect('refused' in refused && refused.refused).toMatchObject({
      status: 429,
      code: 'workspace_rate_limited',
    });
    expect('refused' in refused && refused.refused.message).toContain('workspace ws-flag');
  });
});

describe('tokens rate limits', () => {
  test('admit on usage so far, charge the actual tokens at settle, stop once past the limit', async ({
    redis,
  }) => {
    await freshWindow(redis.client, 60_000);
    const snapshot = snapshotOf(ratePolicy({ type: RateLimitType.TOKENS, value: 100 }));
    const { limits } = makeLimits(redis.client);
    const who = subject({ apiKeyId: 'key-tokens' });
    const usage = { inputTokens: 40, outputTokens: 20, model: 'gpt-4o', provider: 'openai' };

    const first = await limits.admit(snapshot, who, { maxTokens: 500 });
    expect(first.headers['x-ratelimit-remaining-tokens']).toBe('100');
    await first.settle(usage);
    await first.settle(usage); // a second settle charges nothing
    const second = await limits.admit(snapshot, who, {});
    expect(second.headers['x-ratelimit-remaining-tokens']).toBe('40');
    await second.settle(usage);
    const refused = await attempt(limits.admit(snapshot, who, {}));
    expect('refused' in refused && refused.refused).toMatchObject({
      status: 429,
      code: 'policy_rate_limited',
    });
    expect('refused' in refused && refused.refused.message).toContain('100 tokens per minute');
  });

  test('settle without usage charges nothing', async ({ redis }) => {
    await freshWindow(redis.client, 60_000);
    const snapshot = snapshotOf(ratePolicy({ type: RateLimitType.TOKENS, value: 10 }));
    const { limits } = makeLimits(redis.client);
    const who = subject({ apiKeyId: 'key-nousage' });
    for (let i = 0; i < 3; i++) await (await limits.admit(snapshot, who, {})).settle(undefined);
    expect((await limits.admit(snapshot, who, {})).headers['x-ratelimit-remaining-tokens']).toBe('10');
  });
});
