import { PeriodicReset } from '@aigw/proto';
import { describe, expect, it } from 'vitest';
import { snapshotOf, subject, usagePolicy } from './limits.test-support.js';
import { buildPlan, type PlanOptions } from './plan.js';
import { periodAfterReset } from './usage-resets.js';

const NOW = Date.parse('2026-11-25T12:00:00Z');
const MONTH = Date.parse('2026-11-01T00:00:00Z');
const NEXT_MONTH = Date.parse('2026-12-01T00:00:00Z');
const options: PlanOptions = { policies: true, usageLimits: true, nowMs: NOW, estimate: () => 1 };

describe('usage resets of a policy', () => {
  it('starts the period of the reset group at the reset: a new counter key, the same period end', () => {
    const resetAt = NOW - 60_000;
    const policy = usagePolicy({
      periodicReset: PeriodicReset.MONTHLY,
      resets: [{ groupKey: 'api_key', groupValue: 'key-a', resetAtMs: resetAt }],
    });
    const reset = buildPlan(snapshotOf(policy), subject({ apiKeyId: 'key-a' }), options).budgets[0];
    const other = buildPlan(snapshotOf(policy), subject({ apiKeyId: 'key-b' }), options).budgets[0];
    expect(reset?.period).toEqual({ startMs: resetAt, endMs: NEXT_MONTH });
    expect(reset?.key.endsWith(`:${resetAt}`)).toBe(true);
    // Another key of the same policy keeps counting in the calendar month.
    expect(other?.period).toEqual({ startMs: MONTH, endMs: NEXT_MONTH });
    expect(other?.key.endsWith(`:${MONTH}`)).toBe(true);
  });

  it('ignores a reset of an earlier period, of a key the policy does not group by, and keeps the latest', () => {
    const policy = usagePolicy({
      periodicReset: PeriodicReset.MONTHLY,
      resets: [
        { groupKey: 'api_key', groupValue: 'key-a', resetAtMs: MONTH - 1 },
        { groupKey: 'workspace_id', groupValue: subject().workspaceId, resetAtMs: NOW - 5 },
      ],
    });
    expect(buildPlan(snapshotOf(policy), subject({ apiKeyId: 'key-a' }), options).budgets[0]?.period).toEqual(
      {
        startMs: MONTH,
        endMs: NEXT_MONTH,
      },
    );
    const twice = usagePolicy({
      resets: [
        { groupKey: 'api_key', groupValue: 'key-a', resetAtMs: NOW - 10 },
        { groupKey: 'api_key', groupValue: 'key-a', resetAtMs: NOW - 20 },
      ],
    });
    // Never resets: the period has no end, so any reset starts it again.
    expect(buildPlan(snapshotOf(twice), subject({ apiKeyId: 'key-a' }), options).budgets[0]?.period).toEqual({
      startMs: NOW - 10,
      endMs: 0,
    });
  });

  it('keeps a period that started after the reset, and one the reset falls after', () => {
    const period = { startMs: 1_000, endMs: 2_000 };
    expect(periodAfterReset(period, 999)).toBe(period);
    expect(periodAfterReset(period, 2_000)).toBe(period);
    expect(periodAfterReset(period, 1_500)).toEqual({ startMs: 1_500, endMs: 2_000 });
  });
});
