// Data-plane HTTP metrics without express: requests and duration by method and status, with the
// labelled children cached (label resolution is prom-client's expensive part).
import type { ServerResponse } from 'node:http';
import { Counter, Histogram, type Registry } from 'prom-client';

export function dataPlaneMetrics(registry: Registry): (res: ServerResponse) => void {
  const requests = new Counter({
    name: 'gateway_requests_total',
    help: 'Data-plane requests answered, by method and status',
    labelNames: ['method', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'gateway_request_duration_seconds',
    help: 'Data-plane request duration (until the response ended), by method and status',
    labelNames: ['method', 'status'] as const,
    buckets: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300],
    registers: [registry],
  });
  const children = new Map<string, { count: { inc(): void }; time: { observe(v: number): void } }>();
  return (res) => {
    const start = process.hrtime.bigint();
    res.once('close', () => {
      const method = res.req.method ?? 'GET';
      const key = `${method} ${res.statusCode}`;
      let child = children.get(key);
      if (!child) {
        const labels = { method, status: String(res.statusCode) };
        child = { count: requests.labels(labels), time: duration.labels(labels) };
        children.set(key, child);
      }
      child.count.inc();
      child.time.observe(Number(process.hrtime.bigint() - start) / 1e9);
    });
  };
}
