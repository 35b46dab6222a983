// Limits metrics: decisions by result, degraded (Redis-less) decisions, alerts raised.
import { Counter, type Registry } from 'prom-client';

export type DecisionResult =
  | 'admitted'
  | 'rate_limited'
  | 'usage_exhausted'
  | 'usage_in_flight'
  | 'unavailable';

export function limitsMetrics(registry: Registry) {
  // Decisions are counted in plain numbers per (result, degraded) and handed to prom-client when it
  // collects (a scrape): its inc() hashes and validates the labels on every call, even on a child
  // from labels(), and this runs for every admitted request (the same as pipeline/metrics.ts).
  const pending = new Map<DecisionResult, [number, number]>();
  const decisions = new Counter({
    name: 'gateway_limits_decisions_total',
    help: 'Limits admissions by result, and whether Redis was bypassed (degraded)',
    labelNames: ['result', 'degraded'] as const,
    registers: [registry],
    collect() {
      for (const [result, counts] of pending) {
        for (const at of [0, 1] as const) {
          if (counts[at] === 0) continue;
          this.inc({ result, degraded: String(at === 1) }, counts[at]);
          counts[at] = 0;
        }
      }
    },
  });
  // Decisions not yet handed over are dropped by a reset too, as prom-client's own count would be.
  const resetDecisions = decisions.reset.bind(decisions);
  decisions.reset = () => {
    for (const counts of pending.values()) counts.fill(0);
    resetDecisions();
  };
  const degraded = new Counter({
    name: 'gateway_limits_degraded_decisions_total',
    help: 'Limits admissions and settlements decided in-process because Redis was unreachable or slow',
    labelNames: ['operation'] as const,
    registers: [registry],
  });
  const alerts = new Counter({
    name: 'gateway_limits_alerts_total',
    help: 'Usage-limit alert transitions published, by kind',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  const repaid = new Counter({
    name: 'gateway_limits_charged_back_total',
    help: 'Requests admitted locally during a Redis outage and charged to Redis once it answered again',
    registers: [registry],
  });
  return {
    decision(result: DecisionResult, isDegraded: boolean) {
      let counts = pending.get(result);
      if (!counts) {
        counts = [0, 0];
        pending.set(result, counts);
      }
      counts[isDegraded ? 1 : 0]++;
    },
    degraded(operation: 'admit' | 'settle') {
      degraded.inc({ operation });
    },
    repaid(requests: number) {
      repaid.inc(requests);
    },
    alert(kind: 'threshold' | 'exhausted' | 'rate_limited') {
      alerts.inc({ kind });
    },
  };
}
