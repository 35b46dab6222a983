// Usage-limit periods, pure: the period containing a time, for weekly, monthly and every-N-days
// resets anchored at next_usage_reset_at (spec 2.6). Counters are keyed by the period start, so a
// reset needs no job: the next request simply counts in a new key.
import { PeriodicReset } from '@aigw/proto';

export interface PeriodSpec {
  readonly periodicReset: PeriodicReset;
  readonly periodicResetDays: number;
  /** Time of the next (or first) reset; 0 when unset. Any reset of the series anchors it. */
  readonly nextUsageResetAtMs: number;
}

/** [startMs, endMs); a limit that never resets has the single period {0, 0}. */
export interface Period {
  readonly startMs: number;
  readonly endMs: number;
}

const DAY = 86_400_000;
/** Unanchored weekly periods start on Mondays 00:00 UTC (1970-01-05 was a Monday). */
const MONDAY = 4 * DAY;
export const FOREVER: Period = Object.freeze({ startMs: 0, endMs: 0 });

export function periodAt(spec: PeriodSpec, nowMs: number): Period {
  if (spec.periodicResetDays > 0) return fixed(spec.periodicResetDays * DAY, spec.nextUsageResetAtMs, nowMs);
  switch (spec.periodicReset) {
    case PeriodicReset.WEEKLY:
      return fixed(7 * DAY, spec.nextUsageResetAtMs || MONDAY, nowMs);
    case PeriodicReset.MONTHLY:
      return monthly(spec.nextUsageResetAtMs, nowMs);
    default:
      return FOREVER;
  }
}

function fixed(lengthMs: number, anchorMs: number, nowMs: number): Period {
  const startMs = anchorMs + Math.floor((nowMs - anchorMs) / lengthMs) * lengthMs;
  return { startMs, endMs: startMs + lengthMs };
}

/**
 * Calendar months in UTC from the anchor: same day of month and time of day, clamped to the
 * month's last day (an anchor on the 31st resets on Feb 28/29, then on Mar 31 again).
 * Unanchored monthly periods start on the 1st, 00:00 UTC.
 */
function monthly(anchorMs: number, nowMs: number): Period {
  const anchor = new Date(anchorMs);
  const now = new Date(nowMs);
  let k = (now.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + (now.getUTCMonth() - anchor.getUTCMonth());
  while (addMonths(anchor, k) > nowMs) k--;
  while (addMonths(anchor, k + 1) <= nowMs) k++;
  return { startMs: addMonths(anchor, k), endMs: addMonths(anchor, k + 1) };
}

function addMonths(anchor: Date, k: number): number {
  const months = anchor.getUTCMonth() + k;
  const year = anchor.getUTCFullYear() + Math.floor(months / 12);
  const month = ((months % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const timeOfDay =
    anchor.getTime() - Date.UTC(anchor.getUTCFullYear(), anchor.getUTCMonth(), anchor.getUTCDate());
  return Date.UTC(year, month, Math.min(anchor.getUTCDate(), lastDay)) + timeOfDay;
}
