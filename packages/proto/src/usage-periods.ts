// Usage-limit periods, shared by whoever keys or reads a budget counter (gateway, logger, control
// plane): the period holding a time, for weekly, monthly and every-N-days resets anchored at
// next_usage_reset_at (spec 2.6; docs/limits.md "Periods"). Pure, so every reader agrees on keys.
import { PeriodicReset } from './gen/aigw/v1/common.js';

/** The reset fields of a UsageLimit or UsageLimitPolicy. */
export interface UsagePeriodSpec {
  readonly periodicReset: PeriodicReset;
  readonly periodicResetDays: number;
  /** Time of the next (or first) reset; 0 when unset. Any reset of the series anchors it. */
  readonly nextUsageResetAtMs: number;
}

/** [startMs, endMs); a limit that never resets has the single period {0, 0}. */
export interface UsagePeriod {
  readonly startMs: number;
  readonly endMs: number;
}

const DAY = 86_400_000;
/** Unanchored weekly periods start on Mondays 00:00 UTC (1970-01-05 was a Monday). */
const MONDAY = 4 * DAY;
/** The one period of a limit that never resets (counters keyed with period start 0). */
export const NEVER_RESETS: UsagePeriod = Object.freeze({ startMs: 0, endMs: 0 });

/** The period of `spec` holding `nowMs`. */
export function usagePeriodAt(spec: UsagePeriodSpec, nowMs: number): UsagePeriod {
  if (spec.periodicResetDays > 0)
    return everyLength(spec.periodicResetDays * DAY, spec.nextUsageResetAtMs, nowMs);
  switch (spec.periodicReset) {
    case PeriodicReset.WEEKLY:
      return everyLength(7 * DAY, spec.nextUsageResetAtMs || MONDAY, nowMs);
    case PeriodicReset.MONTHLY:
      return monthly(spec.nextUsageResetAtMs, nowMs);
    default:
      return NEVER_RESETS;
  }
}

function everyLength(lengthMs: number, anchorMs: number, nowMs: number): UsagePeriod {
  const startMs = anchorMs + Math.floor((nowMs - anchorMs) / lengthMs) * lengthMs;
  return { startMs, endMs: startMs + lengthMs };
}

/**
 * Calendar months in UTC from the anchor, keeping its day of month and time of day, clamped to
 * short months (an anchor on the 31st resets on Feb 28/29, then on Mar 31). Without an anchor
 * (epoch) periods start on the 1st, 00:00 UTC.
 */
function monthly(anchorMs: number, nowMs: number): UsagePeriod {
  const anchor = new Date(anchorMs);
  const now = new Date(nowMs);
  let k = (now.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + (now.getUTCMonth() - anchor.getUTCMonth());
  while (monthsAfter(anchor, k) > nowMs) k--;
  while (monthsAfter(anchor, k + 1) <= nowMs) k++;
  return { startMs: monthsAfter(anchor, k), endMs: monthsAfter(anchor, k + 1) };
}

function monthsAfter(anchor: Date, k: number): number {
  const months = anchor.getUTCMonth() + k;
  const year = anchor.getUTCFullYear() + Math.floor(months / 12);
  const month = ((months % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const timeOfDay =
    anchor.getTime() - Date.UTC(anchor.getUTCFullYear(), anchor.getUTCMonth(), anchor.getUTCDate());
  return Date.UTC(year, month, Math.min(anchor.getUTCDate(), lastDay)) + timeOfDay;
}
