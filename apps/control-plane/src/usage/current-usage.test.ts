import { createLogger } from '@aigw/runtime';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../auth/principal.js';
import { fillCurrentUsage, periodStartOf, type ShownLimit, usageOf } from './current-usage.js';
import type { UsageContext } from './usage-reader.js';

const at = (iso: string) => Date.parse(iso);

describe('periodStartOf', () => {
  const now = at('2026-11-25T06:00:00Z');
  it.each([
    ['never resets', {}, 0],
    [
      'monthly, unanchored: the UTC calendar month',
      { periodic_reset: 'monthly' },
      at('2026-11-01T00:00:00Z'),
    ],
    ['weekly, unanchored: Monday', { periodic_reset: 'weekly' }, at('2026-11-23T00:00:00Z')],
    [
      'monthly from a stored Date anchor',
      { periodic_reset: 'monthly', next_usage_reset_at: new Date('2026-12-10T12:00:00Z') },
      at('2026-11-10T12:00:00Z'),
    ],
    [
      'every 4 days from an ISO anchor',
      { periodic_reset_days: 4, next_usage_reset_at: '2026-11-27T00:00:00.000Z' },
      at('2026-11-23T00:00:00Z'),
    ],
  ] as const)('%s', (_name, limit, expected) => {
    expect(periodStartOf(limit, now)).toBe(expected);
  });
});

describe('usageOf', () => {
  it('is fractional USD for cost and tokens for tokens', () => {
    const amount = { costMicros: 1_500_001, costUsd: 1.500001, tokens: 42, requests: 3 };
    expect(usageOf('cost', amount)).toBe(1.500001);
    expect(usageOf('tokens', amount)).toBe(42);
  });
});

describe('fillCurrentUsage without a logger', () => {
  it('leaves 0 and marks the response', async () => {
    const headers = new Map<string, string>();
    const ctx = {
      logsService: null,
      principal: { organisationId: 'o' } as Principal,
      log: createLogger({ app: 'test', level: 'silent' }),
      req: { res: { headersSent: false, setHeader: (k: string, v: string) => headers.set(k, v) } },
    } as unknown as UsageContext;
    const limits: ShownLimit[] = [{ type: 'cost', current_usage: 0 }];
    await fillCurrentUsage(ctx, [{ kind: 'api_key', id: 'k', limits }]);
    expect(limits[0]?.current_usage).toBe(0);
    expect(headers.get('x-service-usage-unavailable')).toBe('logger_not_configured');
  });
});
