import { ApiKey, EntityKind, EntityStatus, RateLimitType, RateLimitUnit, UsageLimitType } from '@aigw/proto';
import { describe, expect, it } from 'vitest';
import { entity, ORG, ratePolicy, snapshotOf, subject, usagePolicy, WS } from './limits.test-support.js';
import { buildPlan, type PlanOptions } from './plan.js';

const options: PlanOptions = {
  policies: true,
  usageLimits: true,
  nowMs: Date.parse('2026-11-25T00:00:00Z'),
  estimate: (type) => (type === 'tokens' ? 300 : 4_200),
};

const apiKey = entity(
  EntityKind.API_KEY,
  {
    $case: 'apiKey',
    value: ApiKey.fromPartial({
      rateLimits: [
        { type: RateLimitType.REQUESTS, unit: RateLimitUnit.RPM, value: 30 },
        { type: RateLimitType.REQUESTS, unit: RateLimitUnit.RPM, value: 10 },
        { type: RateLimitType.TOKENS, unit: RateLimitUnit.RPD, value: 5_000 },
        { type: RateLimitType.UNSPECIFIED, unit: RateLimitUnit.RPM, value: 1 },
      ],
      usageLimits: [{ type: UsageLimitType.COST, creditLimit: 1_000_000, alertThreshold: 800_000 }],
    }),
  },
  { id: 'key-plan', workspaceId: WS },
);

describe('buildPlan', () => {
  it('puts every key of a request in its organisation hash slot', () => {
    const snapshot = snapshotOf(ratePolicy({}), usagePolicy({}));
    const plan = buildPlan(snapshot, subject({ apiKey }), options);
    const keys = [...plan.rates, ...plan.budgets].map((i) => i.key);
    expect(keys.length).toBe(5);
    for (const key of keys) expect(key.match(/\{[^}]*\}/g)).toEqual([`{${ORG}}`]);
  });

  it('merges equal limits of one entity into one counter at the lower value, skips unset types', () => {
    const plan = buildPlan(snapshotOf(), subject({ apiKey }), options);
    expect(plan.rates.map((r) => [r.type, r.limit, r.windowMs, r.owner.kind, r.owner.group])).toEqual([
      ['requests', 10, 60_000, 'api_key', 'type=requests'],
      ['tokens', 5_000, 86_400_000, 'api_key', 'type=tokens'],
    ]);
    expect(plan.budgets.map((b) => [b.type, b.limit, b.threshold, b.estimate, b.period])).toEqual([
      ['cost', 1_000_000, 800_000, 4_200, { startMs: 0, endMs: 0 }],
    ]);
  });

  it('keeps one counter per group value, and the group in the owner', () => {
    const policy = ratePolicy({});
    const a = buildPlan(snapshotOf(policy), subject({ apiKeyId: 'a' }), options).rates[0];
    const b = buildPlan(snapshotOf(policy), subject({ apiKeyId: 'b' }), options).rates[0];
    expect(a?.key).not.toBe(b?.key);
    expect(a?.owner).toMatchObject({ kind: 'policy', id: policy.id, group: 'api_key=a' });
  });

  it('skips archived policies and those of other workspaces; keeps organisation-level and own', () => {
    const own = ratePolicy({}, { workspaceId: WS });
    const orgLevel = ratePolicy({});
    const snapshot = snapshotOf(
      own,
      orgLevel,
      ratePolicy({}, { workspaceId: 'elsewhere' }),
      ratePolicy({ status: EntityStatus.ARCHIVED }),
    );
    expect(
      buildPlan(snapshot, subject(), options)
        .rates.map((r) => r.owner.id)
        .sort(),
    ).toEqual([own.id, orgLevel.id].sort());
  });

  it('honours POLICY_ENABLED and USAGE_LIMITS_ENABLED', () => {
    const snapshot = snapshotOf(ratePolicy({}), usagePolicy({}));
    const noPolicies = buildPlan(snapshot, subject({ apiKey }), { ...options, policies: false });
    expect(noPolicies.rates.every((r) => r.owner.kind === 'api_key')).toBe(true);
    expect(noPolicies.budgets.map((b) => b.owner.kind)).toEqual(['api_key']);
    const noBudgets = buildPlan(snapshot, subject({ apiKey }), { ...options, usageLimits: false });
    expect(noBudgets.budgets).toEqual([]);
    expect(noBudgets.rates).toHaveLength(3);
  });
});
