// Per-entity usage resets of a usage-limit policy (UsageLimitPolicy.resets): a group whose values
// include a reset one counts from the reset time while it is inside the current period, because
// its counter's period start (part of the Redis key) becomes that time. A fresh key is a zero
// counter on every gateway at once, with nothing to delete, and the logger's ledger and the control
// plane's current_usage key the same period start (docs/limits.md "Resets").
import type { UsageLimitReset } from '@aigw/proto';
import { valuesOf } from './conditions.js';
import type { Period } from './periods.js';
import type { LimitSubject } from './subject.js';

/** The latest reset of the policy that names a value of this subject's group, or 0. */
export function resetAtOf(
  resets: readonly UsageLimitReset[],
  groupKeys: readonly string[],
  subject: LimitSubject,
): number {
  let latest = 0;
  for (const reset of resets) {
    if (reset.resetAtMs <= latest || !groupKeys.includes(reset.groupKey)) continue;
    // The group takes a key's first value (groupValue); a user is grouped by its id or e-mail.
    if ((valuesOf(subject, reset.groupKey)[0] ?? '') === reset.groupValue) latest = reset.resetAtMs;
  }
  return latest;
}

/**
 * The period a reset group counts in: from the reset when it happened inside `period` (a limit
 * that never resets has no end, so any reset is inside), else `period` itself.
 */
export function periodAfterReset(period: Period, resetAtMs: number): Period {
  if (resetAtMs <= period.startMs) return period;
  if (period.endMs !== 0 && resetAtMs >= period.endMs) return period;
  return { startMs: resetAtMs, endMs: period.endMs };
}
