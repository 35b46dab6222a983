// `current_usage` of the usage limits an admin response shows (spec 2.5: fractional USD for cost,
// tokens for tokens), from the usage ledger, for the period the gateway counts in now: the same
// usagePeriodAt() over the limit's reset settings. docs/control-plane.md "Current usage".
import { type UsageAmount, type UsagePeriod, usagePeriodAt } from '@aigw/proto';
import { periodicResetToProto } from '../limits/limits.schema.js';
import { readUsage, type UsageContext, type UsageKey, type UsageOwnerKind } from './usage-reader.js';

/** The reset settings of a usage limit, in API form (entity limits) or stored form (policies). */
export interface LimitPeriod {
  readonly periodic_reset?: 'weekly' | 'monthly' | null | undefined;
  readonly periodic_reset_days?: number | null | undefined;
  readonly next_usage_reset_at?: string | Date | null | undefined;
}

/** A usage limit as responses show it; `current_usage` is filled in place. */
export interface ShownLimit extends LimitPeriod {
  readonly type: 'cost' | 'tokens';
  current_usage: number;
}

/** An entity's usage limits, with the ledger group they count in. */
export interface LimitOwner {
  readonly kind: UsageOwnerKind;
  readonly id: string;
  /** '' for limits set on the entity; `workspace_id=<id>` for an integration's per-workspace limits. */
  readonly group?: string;
  readonly limits: readonly ShownLimit[];
}

/** Start (ms) of the period `limit` counts in at `nowMs`; 0 for a limit that never resets. */
export function periodStartOf(limit: LimitPeriod, nowMs: number): number {
  return periodOf(limit, nowMs).startMs;
}

/** The period `limit` counts in at `nowMs` ({0, 0} for a limit that never resets). */
export function periodOf(limit: LimitPeriod, nowMs: number): UsagePeriod {
  const next = limit.next_usage_reset_at;
  return usagePeriodAt(
    {
      periodicReset: periodicResetToProto(limit.periodic_reset),
      periodicResetDays: limit.periodic_reset_days ?? 0,
      nextUsageResetAtMs: next ? new Date(next).getTime() : 0,
    },
    nowMs,
  );
}

/** The limit's measure of an amount: USD (fractional) for cost, tokens for tokens. */
export function usageOf(type: 'cost' | 'tokens', amount: UsageAmount): number {
  return type === 'cost' ? amount.costUsd : amount.tokens;
}

/** The group of an integration's per-workspace limits, as the gateway names it. */
export function integrationWorkspaceGroup(workspaceId: string): string {
  return `workspace_id=${encodeURIComponent(workspaceId)}`;
}

/**
 * Fills `current_usage` of every limit of `owners` with one ledger read. When the ledger cannot
 * be read, the values stay 0 and the response carries the usage-unavailable header.
 */
export async function fillCurrentUsage(
  ctx: UsageContext,
  owners: readonly LimitOwner[],
  nowMs = Date.now(),
): Promise<void> {
  const keys: UsageKey[] = [];
  const targets: ShownLimit[] = [];
  for (const owner of owners) {
    for (const limit of owner.limits) {
      keys.push({
        kind: owner.kind,
        id: owner.id,
        group: owner.group ?? '',
        periodStartMs: periodStartOf(limit, nowMs),
      });
      targets.push(limit);
    }
  }
  const amounts = await readUsage(ctx, keys);
  if (!amounts) return;
  targets.forEach((limit, i) => {
    const amount = amounts[i];
    if (amount) limit.current_usage = usageOf(limit.type, amount);
  });
}
