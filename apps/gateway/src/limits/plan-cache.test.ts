import { ApiKey, EntityKind, PeriodicReset, UsageLimitType } from '@aigw/proto';
import { describe, expect, it } from 'vitest';
import { entity, ratePolicy, snapshotOf, subject, usagePolicy, WS } from './limits.test-support.js';
import { periodAt } from './periods.js';
import { buildPlan, instantiate, type PlanOptions } from './plan.js';
import { createPlanCache, subjectKey } from './plan-cache.js';

const DAY = 86_400_000;
const flags = { policies: true, usageLimits: true };
const estimate: PlanOptions['estimate'] = (type) => (type === 'tokens' ? 300 : 4_200);
const T = Date.parse('2026-11-25T12:00:00Z');

/** The cached plan and a plan built from scratch, side by side. */
function both(
  cache: ReturnType<typeof createPlanCache>,
  snapshot: ReturnType<typeof snapshotOf>,
  s = subject(),
  nowMs = T,
) {
  return {
    cached: instantiate(cache(snapshot, s), nowMs, estimate),
    fresh: buildPlan(snapshot, s, { ...flags, nowMs, estimate }),
  };
}

describe('plan cache', () => {
  it('reuses a template for the same subject, and for metadata no policy reads', () => {
    const cache = createPlanCache(flags);
    const snapshot = snapshotOf(ratePolicy({}), usagePolicy({}));
    const a = cache(snapshot, subject({ metadata: { trace: '1' } }));
    expect(cache(snapshot, subject({ metadata: { trace: '2' } }))).toBe(a);
    expect(cache(snapshot, subject({ apiKeyId: 'other' }))).not.toBe(a);
  });

  it('tells subjects apart by every metadata key a policy conditions or groups on', () => {
    const cache = createPlanCache(flags);
    const searchOnly = ratePolicy({ conditions: [{ key: 'metadata.team', value: 'search' }] });
    const perUser = usagePolicy({ groupBy: [{ key: 'metadata.user' }] });
    const snapshot = snapshotOf(searchOnly, perUser);
    for (const metadata of <Record<string, string>[]>[
      { team: 'search', user: 'a' },
      { team: 'ads', user: 'a' },
      { team: 'search', user: 'b' },
      { user: 'b' },
      {},
      { team: 'search', user: 'a' },
    ]) {
      const { cached, fresh } = both(cache, snapshot, subject({ metadata }));
      expect(cached).toEqual(fresh);
    }
    const ads = instantiate(cache(snapshot, subject({ metadata: { team: 'ads' } })), T, estimate);
    expect(ads.rates).toEqual([]);
  });

  it('keeps values apart that would collide if joined (length-prefixed)', () => {
    const keys = ['x'];
    expect(subjectKey(subject({ apiKeyId: 'a1', model: '' }), keys)).not.toBe(
      subjectKey(subject({ apiKeyId: 'a', model: '1' }), keys),
    );
    // A missing metadata value and an empty one match the same policies.
    expect(subjectKey(subject({ metadata: { x: '' } }), keys)).toBe(
      subjectKey(subject({ metadata: {} }), keys),
    );
    // Not a prototype property either.
    expect(subjectKey(subject({ metadata: {} }), ['constructor'])).toBe(subjectKey(subject(), ['other']));
  });

  it('matches model conditions per model', () => {
    const cache = createPlanCache(flags);
    const snapshot = snapshotOf(ratePolicy({ conditions: [{ key: 'model', value: 'gpt-4o' }] }));
    expect(instantiate(cache(snapshot, subject({ model: 'gpt-4o' })), T, estimate).rates).toHaveLength(1);
    expect(instantiate(cache(snapshot, subject({ model: 'gpt-4o-mini' })), T, estimate).rates).toHaveLength(
      0,
    );
  });

  it('rolls periods over with the clock, forwards and back, for weekly, N-day and monthly budgets', () => {
    const cache = createPlanCache(flags);
    const anchor = Date.parse('2026-11-20T06:00:00Z');
    const snapshot = snapshotOf(
      usagePolicy({ periodicReset: PeriodicReset.WEEKLY, nextUsageResetAtMs: anchor }),
      usagePolicy({ periodicResetDays: 3, nextUsageResetAtMs: anchor, type: UsageLimitType.COST }),
      usagePolicy({ periodicReset: PeriodicReset.MONTHLY }),
      usagePolicy({}),
    );
    for (const nowMs of [
      T,
      T + DAY,
      T + 7 * DAY,
      T + 40 * DAY,
      T - 1,
      T,
      anchor + 3 * DAY - 1,
      anchor + 3 * DAY,
    ]) {
      const { cached, fresh } = both(cache, snapshot, subject(), nowMs);
      expect(cached).toEqual(fresh);
      for (const b of cached.budgets) {
        expect(b.key.endsWith(`:${b.period.startMs}`)).toBe(true);
        if (b.period.endMs > 0) expect(nowMs >= b.period.startMs && nowMs < b.period.endMs).toBe(true);
      }
    }
    const week = instantiate(cache(snapshot, subject()), anchor + 7 * DAY, estimate).budgets[0];
    expect(week?.period).toEqual(
      periodAt(
        { periodicReset: PeriodicReset.WEEKLY, periodicResetDays: 0, nextUsageResetAtMs: anchor },
        anchor + 7 * DAY,
      ),
    );
    expect(week?.period.startMs).toBe(anchor + 7 * DAY);
  });

  it('builds afresh for a new snapshot and for other entity objects with the same ids', () => {
    const cache = createPlanCache(flags);
    const id = '00000000-0000-4000-8000-00000000abcd';
    const first = snapshotOf(ratePolicy({ value: 10 }, { id }));
    const second = snapshotOf(ratePolicy({ value: 20 }, { id, version: 2 }));
    expect(instantiate(cache(first, subject()), T, estimate).rates[0]?.limit).toBe(10);
    expect(instantiate(cache(second, subject()), T, estimate).rates[0]?.limit).toBe(20);

    const key = (creditLimit: number) =>
      entity(
        EntityKind.API_KEY,
        {
          $case: 'apiKey',
          value: ApiKey.fromPartial({ usageLimits: [{ type: UsageLimitType.TOKENS, creditLimit }] }),
        },
        { id: 'key-1', workspaceId: WS },
      );
    const snapshot = snapshotOf();
    expect(instantiate(cache(snapshot, subject({ apiKey: key(5) })), T, estimate).budgets[0]?.limit).toBe(5);
    expect(instantiate(cache(snapshot, subject({ apiKey: key(9) })), T, estimate).budgets[0]?.limit).toBe(9);
  });

  it('merges two limits of one entity that fall on one counter, as buildPlan always did', () => {
    const cache = createPlanCache(flags);
    const apiKey = entity(
      EntityKind.API_KEY,
      {
        $case: 'apiKey',
        value: ApiKey.fromPartial({
          usageLimits: [
            { type: UsageLimitType.TOKENS, creditLimit: 50, periodicReset: PeriodicReset.MONTHLY },
            { type: UsageLimitType.TOKENS, creditLimit: 40, periodicReset: PeriodicReset.MONTHLY },
            { type: UsageLimitType.TOKENS, creditLimit: 30 },
          ],
        }),
      },
      { id: 'key-m', workspaceId: WS },
    );
    const { cached, fresh } = both(cache, snapshotOf(), subject({ apiKey }));
    expect(cached).toEqual(fresh);
    expect(cached.budgets.map((b) => b.limit)).toEqual([40, 30]);
  });

  it("one caller's subjects in a row: each value a policy reads gives its own plan, never the last one's", () => {
    const cache = createPlanCache(flags);
    const apiKey = entity(
      EntityKind.API_KEY,
      {
        $case: 'apiKey',
        value: ApiKey.fromPartial({ usageLimits: [{ type: UsageLimitType.TOKENS, creditLimit: 7 }] }),
      },
      { id: 'key-1', workspaceId: WS },
    );
    const snapshot = snapshotOf(
      ratePolicy({ conditions: [{ key: 'model', value: 'gpt-4o' }] }),
      ratePolicy({ value: 11, conditions: [{ key: 'metadata.team', value: 'search' }] }),
      ratePolicy({ value: 12, conditions: [{ key: 'provider', value: 'anthropic' }] }),
      usagePolicy({ groupBy: [{ key: 'metadata.user' }] }),
      usagePolicy({ creditLimit: 13, conditions: [{ key: 'config_id', value: 'cfg-1' }] }),
    );
    // Every subject shares the caller (the same API key entity) and differs from the one before it
    // in one value; each cached plan must be the plan built from scratch.
    const subjects = [
      subject({ apiKey }),
      subject({ apiKey, model: 'gpt-4o-mini' }),
      subject({ apiKey, model: 'gpt-4o-mini', metadata: { team: 'search' } }),
      subject({ apiKey, model: 'gpt-4o-mini', metadata: { team: 'search', user: 'a' } }),
      subject({ apiKey, model: 'gpt-4o-mini', metadata: { team: 'search', user: 'b' } }),
      subject({ apiKey, model: 'gpt-4o-mini', metadata: { team: 'search', user: 'b', other: 'x' } }),
      subject({ apiKey, provider: 'anthropic' }),
      subject({ apiKey, configId: 'cfg-1' }),
      subject({ apiKey, configId: 'cfg-1', configSlug: 'c' }),
      subject({ apiKey, workspaceId: 'ws-2' }),
      subject({ apiKey, apiKeyId: 'key-2' }),
      subject({ apiKey, virtualKeyId: 'vk-1' }),
      subject({ apiKey, virtualKeySlug: 'vk' }),
      subject({ apiKey: { ...apiKey } }),
      subject({ apiKey }),
      subject({ apiKey }),
    ];
    const plans = subjects.map((s) => both(cache, snapshot, s));
    for (const { cached, fresh } of plans) expect(cached).toEqual(fresh);
    // The values do tell the plans apart (the cases above are not all one plan).
    expect(new Set(plans.map((p) => JSON.stringify(p.fresh))).size).toBeGreaterThan(4);
    // And the same caller with the same values takes the same template object.
    expect(cache(snapshot, subject({ apiKey, metadata: { trace: '1' } }))).toBe(
      cache(snapshot, subject({ apiKey, metadata: { trace: '2' } })),
    );
  });
});
