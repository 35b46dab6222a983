import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import { dataPlaneMetrics } from './metrics.js';

/** What prom-client itself exposes for the same requests (the metrics before the fast path). */
function reference(registry: Registry) {
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
  return (method: string, status: number, seconds: number) => {
    requests.inc({ method, status: String(status) });
    duration.observe({ method, status: String(status) }, seconds);
  };
}

/** A response that closes `seconds` after the metric saw it. */
function respond(metric: (res: ServerResponse) => void, method: string, status: number, seconds: number) {
  const res = Object.assign(new EventEmitter(), { req: { method }, statusCode: status });
  const now = vi.spyOn(performance, 'now').mockReturnValue(1_000);
  metric(res as unknown as ServerResponse);
  now.mockReturnValue(1_000 + seconds * 1e3);
  res.emit('close');
  now.mockRestore();
}

const requests: [string, number, number][] = [
  ['POST', 200, 0.004],
  ['POST', 200, 0.005],
  ['GET', 404, 0.0051],
  ['POST', 200, 0.3],
  ['POST', 502, 301],
  ['GET', 200, 1],
  ['GET', 404, 59.9],
];

describe('dataPlaneMetrics', () => {
  it('exposes what prom-client Counter and Histogram expose for the same requests', async () => {
    const fast = new Registry();
    const metric = dataPlaneMetrics(fast);
    const slow = new Registry();
    const observe = reference(slow);
    expect(await fast.metrics()).toBe(await slow.metrics());
    for (const [method, status, seconds] of requests) {
      respond(metric, method, status, seconds);
      observe(method, status, seconds);
    }
    const text = await fast.metrics();
    expect(text).toBe(await slow.metrics());
    expect(text).toContain('gateway_request_duration_seconds_bucket{le="0.01",method="GET",status="404"} 1');
    expect(text).toContain('gateway_requests_total{method="POST",status="200"} 3');
    // Scraped again after more requests: counts keep adding up.
    respond(metric, 'POST', 200, 0.02);
    observe('POST', 200, 0.02);
    expect(await fast.metrics()).toBe(await slow.metrics());
    const json = (metrics: Awaited<ReturnType<Registry['getMetricsAsJSON']>>) =>
      metrics.map((m) => ({ ...m, values: m.values.map(({ labels, value }) => ({ labels, value })) }));
    expect(json(await fast.getMetricsAsJSON())).toEqual(json(await slow.getMetricsAsJSON()));
  });

  it('starts from zero again when the registry is reset', async () => {
    const fast = new Registry();
    const metric = dataPlaneMetrics(fast);
    const slow = new Registry();
    const observe = reference(slow);
    respond(metric, 'POST', 200, 0.2);
    fast.resetMetrics();
    slow.resetMetrics();
    respond(metric, 'DELETE', 204, 0.01);
    observe('DELETE', 204, 0.01);
    expect(await fast.metrics()).toBe(await slow.metrics());
  });
});
