// /healthz (the process is alive), /readyz (every dependency answers), /metrics (Prometheus).
import { Router } from 'express';
import type { Registry } from 'prom-client';
import { withTimeout } from './timeout.js';

/** A readiness check resolves when the dependency answers and rejects (or times out) otherwise. */
export type ReadinessCheck = () => Promise<void>;

export interface HealthOptions {
  readonly checks: Readonly<Record<string, ReadinessCheck>>;
  readonly registry: Registry;
  /** True once shutdown began: readiness fails so load balancers stop sending traffic. */
  readonly draining: () => boolean;
  readonly checkTimeoutMs?: number;
}

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, { ok: boolean; error?: string }>;
}

export async function checkReadiness(options: HealthOptions): Promise<ReadinessReport> {
  const timeoutMs = options.checkTimeoutMs ?? 2_000;
  const entries = await Promise.all(
    Object.entries(options.checks).map(async ([name, check]) => {
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
  const checks: ReadinessReport['checks'] = Object.fromEntries(entries);
  if (options.draining()) checks.shutdown = { ok: false, error: 'shutting down' };
  return { ready: Object.values(checks).every((c) => c.ok), checks };
}

export function healthRouter(options: HealthOptions): Router {
  const router = Router();
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
