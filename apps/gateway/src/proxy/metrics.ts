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
  type Child = { count: { inc(): void }; time: { observe(v: number): void } };
  // By method, then status: no key string to build per request.
  const children = new Map<string, Map<number, Child>>();
  const childFor = (method: string, status: number): Child => {
    let byStatus = children.get(method);
    if (!byStatus) {
      byStatus = new Map();
      children.set(method, byStatus);
    }
    let child = byStatus.get(status);
    if (!child) {
      const labels = { method, status: String(status) };
      child = { count: requests.labels(labels), time: duration.labels(labels) };
      byStatus.set(status, child);
    }
    return child;
  };
  return (res) => {
    const start = performance.now();
    res.once('close', () => {
      const child = childFor(res.req.method ?? 'GET', res.statusCode);
      child.count.inc();
      child.time.observe((performance.now() - start) / 1e3);
    });
  };
}
