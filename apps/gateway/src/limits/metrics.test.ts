import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { limitsMetrics } from './metrics.js';

async function decisions(registry: Registry): Promise<Record<string, number>> {
  const metric = registry.getSingleMetric('gateway_limits_decisions_total');
  const { values } = await metric!.get();
  return Object.fromEntries(values.map((v) => [`${v.labels.result}/${v.labels.degraded}`, v.value]));
}

describe('limits metrics', () => {
  it('counts decisions by result and degraded flag, as prom-client shows them, across scrapes', async () => {
    const registry = new Registry();
    const metrics = limitsMetrics(registry);
    expect(await decisions(registry)).toEqual({});
    for (let i = 0; i < 3; i++) metrics.decision('admitted', false);
    metrics.decision('admitted', true);
    metrics.decision('rate_limited', false);
    expect(await decisions(registry)).toEqual({
      'admitted/false': 3,
      'admitted/true': 1,
      'rate_limited/false': 1,
    });
    // A second scrape adds only what came since.
    metrics.decision('admitted', false);
    expect(await decisions(registry)).toEqual({
      'admitted/false': 4,
      'admitted/true': 1,
      'rate_limited/false': 1,
    });
    expect(await registry.metrics()).toContain(
      'gateway_limits_decisions_total{result="admitted",degraded="false"} 4',
    );
  });

  it('a reset drops the counts not yet scraped too', async () => {
    const registry = new Registry();
    const metrics = limitsMetrics(registry);
    metrics.decision('usage_exhausted', false);
    registry.resetMetrics();
    metrics.decision('admitted', false);
    expect(await decisions(registry)).toEqual({ 'admitted/false': 1 });
  });
});
