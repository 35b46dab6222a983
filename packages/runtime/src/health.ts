// /healthz (the process is alive), /readyz (this replica can serve: every dependency it cannot serve
// without answers), /metrics (Prometheus).
import { Router } from 'express';
import { Gauge, type Registry } from 'prom-client';
import { withTimeout } from './timeout.js';

/** A readiness check resolves when the dependency answers and rejects (or times out) otherwise. */
export type ReadinessCheck = () => Promise<void>;

export interface HealthOptions {
  readonly checks: Readonly<Record<string, ReadinessCheck>>;
  /**
   * Dependencies the process serves without (it degrades instead): reported by /readyz under
   * `degraded` and by the `dependency_up` gauge, never failing readiness. Pulling every replica out
   * of the load balancer because a shared dependency is down would turn a degraded mode into an outage.
   */
  readonly degradable?: Readonly<Record<string, ReadinessCheck>>;
  readonly registry: Registry;
  /** True once shutdown began: readiness fails so load balancers stop sending traffic. */
  readonly draining: () => boolean;
  readonly checkTimeoutMs?: number;
}

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, { ok: boolean; error?: string }>;
  /** Degradable dependencies that do not answer (present only when one does not). */
  degraded?: Record<string, { ok: boolean; error?: string }>;
}

type CheckResults = Record<string, { ok: boolean; error?: string }>;

async function runChecks(
  checks: Readonly<Record<string, ReadinessCheck>>,
  timeoutMs: number,
): Promise<CheckResults> {
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      try {
        await withTimeout(
          check(),
          timeoutMs,
          () => new Error(`${name} did not answer within ${timeoutMs} ms`),
        );
        return [name, { ok: true }] as const;
      } catch (err) {
        return [name, { ok: false, error: err instanceof Error ? err.message : String(err) }] as const;
      }
    }),
  );
  return Object.fromEntries(entries);
}

export async function checkReadiness(options: HealthOptions): Promise<ReadinessReport> {
  const timeoutMs = options.checkTimeoutMs ?? 2_000;
  const [checks, optional] = await Promise.all([
    runChecks(options.checks, timeoutMs),
    runChecks(options.degradable ?? {}, timeoutMs),
  ]);
  if (options.draining()) checks.shutdown = { ok: false, error: 'shutting down' };
  const report: ReadinessReport = { ready: Object.values(checks).every((c) => c.ok), checks };
  const down = Object.entries(optional).filter(([, c]) => !c.ok);
  if (down.length > 0) report.degraded = Object.fromEntries(down);
  return report;
}

/** `dependency_up{dependency}` for the degradable dependencies, read at each scrape. */
function dependencyGauge(options: HealthOptions): void {
  const degradable = options.degradable;
  if (!degradable || Object.keys(degradable).length === 0) return;
  if (options.registry.getSingleMetric('dependency_up')) return;
  new Gauge({
    name: 'dependency_up',
    help: '1 when a dependency the process can serve without answers, 0 while it runs degraded without it',
    labelNames: ['dependency'],
    registers: [options.registry],
    async collect() {
      const results = await runChecks(degradable, options.checkTimeoutMs ?? 2_000);
      for (const [name, result] of Object.entries(results)) this.set({ dependency: name }, result.ok ? 1 : 0);
    },
  });
}

export function healthRouter(options: HealthOptions): Router {
  const router = Router();
  dependencyGauge(options);
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const report = await checkReadiness(options);
    res.status(report.ready ? 200 : 503).json(report);
  });
  router.get('/metrics', async (_req, res) => {
    res.setHeader('content-type', options.registry.contentType);
    res.send(await options.registry.metrics());
  });
  return router;
}
