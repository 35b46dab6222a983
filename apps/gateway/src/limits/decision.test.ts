import { describe, expect, it } from 'vitest';
import { rateHeaders } from './decision.js';
import type { LimitOwner, Plan, RateItem } from './plan.js';
import type { AdmitOutput } from './store.js';

const owner = { kind: 'policy', id: 'p' } as LimitOwner;
const rate = (type: RateItem['type'], limit: number, windowMs = 60_000): RateItem => ({
  key: `k-${type}-${limit}`,
  type,
  limit,
  windowMs,
  owner,
});
const plan = (...rates: RateItem[]): Plan => ({ rates, budgets: [] });
// 12.5 s into a minute, 12.5 s into an hour.
const NOW = 1_800_000_000_000 + 12_500;
const out = (rateCounts: number[], admitted = true): AdmitOutput => ({
  nowMs: NOW,
  admitted,
  rateCounts,
  budgets: [],
});

describe('rateHeaders', () => {
  it('names the tightest limit of each type, requests counting this one when admitted', () => {
    const headers = rateHeaders(
      plan(
        rate('requests', 100),
        rate('tokens', 1000, 3_600_000),
        rate('requests', 10),
        rate('tokens', 5000),
      ),
      out([50, 900, 5, 4900]),
    );
    // requests: 100-51 = 49 left, 10-6 = 4 left; tokens: 1000-900 = 100 left, 5000-4900 = 100 left (first wins).
    expect(headers).toEqual({
      'x-ratelimit-limit-requests': '10',
      'x-ratelimit-remaining-requests': '4',
      'x-ratelimit-reset-requests': '48',
      'x-ratelimit-limit-tokens': '1000',
      'x-ratelimit-remaining-tokens': '100',
      'x-ratelimit-reset-tokens': String(Math.ceil((3_600_000 - (NOW % 3_600_000)) / 1000)),
    });
    expect(Object.keys(headers)).toEqual([
      'x-ratelimit-limit-requests',
      'x-ratelimit-remaining-requests',
      'x-ratelimit-reset-requests',
      'x-ratelimit-limit-tokens',
      'x-ratelimit-remaining-tokens',
      'x-ratelimit-reset-tokens',
    ]);
  });

  it('does not count a refused request, never goes below 0 remaining, and leaves out absent types', () => {
    expect(rateHeaders(plan(rate('requests', 3)), out([7], false))).toEqual({
      'x-ratelimit-limit-requests': '3',
      'x-ratelimit-remaining-requests': '0',
      'x-ratelimit-reset-requests': '48',
    });
    expect(rateHeaders(plan(rate('requests', 3)), out([1], false))['x-ratelimit-remaining-requests']).toBe(
      '2',
    );
    expect(rateHeaders(plan(), out([]))).toEqual({});
  });
});
