// Usage-limit periods: the one definition every reader of budget counters shares (@aigw/proto
// usage-periods.ts: weekly, monthly and every-N-days resets anchored at next_usage_reset_at), under
// the names the limits engine uses. Counters are keyed by the period start, so a reset needs no job.
export {
  type UsagePeriod as Period,
  type UsagePeriodSpec as PeriodSpec,
  usagePeriodAt as periodAt,
} from '@aigw/proto';
