// Limits metrics: decisions by result, degraded (Redis-less) decisions, alerts raised.
import { Counter, type Registry } from 'prom-client';

export type DecisionResult =
  | 'admitted'
  | 'rate_limited'
  | 'usage_exhausted'
  | 'usage_in_flight'
  | 'unavailable';

export function limitsMetrics(registry: Registry) {
  const decisions = new Counter({
    name: 'gateway_limits_decisions_total',
    help: 'Limits admissions by result, and whether Redis was bypassed (degraded)',
    labelNames: ['result', 'degraded'] as const,
    registers: [registry],
  });
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
  // Children resolved once: label lookup is prom-client's costly part on the hot path.
  const decisionChildren = new Map<string, { inc(): void }>();
  return {
    decision(result: DecisionResult, isDegraded: boolean) {
      const key = `${result}:${isDegraded}`;
      let child = decisionChildren.get(key);
      if (!child) {
        child = decisions.labels({ result, degraded: String(isDegraded) });
        decisionChildren.set(key, child);
      }
      child.inc();
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
