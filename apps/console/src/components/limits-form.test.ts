import { describe, expect, it } from 'vitest';
import {
  describeRate,
  describeUsage,
  isoToLocal,
  limitsBody,
  limitsState,
  localToIso,
  NO_LIMITS,
} from './limits-form.js';

describe('limits form', () => {
  it('sends nothing when no limit is set', () => {
    expect(limitsBody(NO_LIMITS)).toEqual({});
  });

  it('turns rows into the API fields, omitting empty optional values', () => {
    const body = limitsBody({
      rate: [{ type: 'requests', unit: 'rpm', value: '60' }],
      usage: [
        { type: 'cost', credit_limit: '25.5', alert_threshold: '20', periodic_reset: 'monthly' },
        { type: 'tokens', credit_limit: '1000', alert_threshold: '', periodic_reset: '' },
      ],
      expiresAt: '',
    });
    expect(body).toEqual({
      rate_limits: [{ type: 'requests', unit: 'rpm', value: 60 }],
      usage_limits: [
        { type: 'cost', credit_limit: 25.5, alert_threshold: 20, periodic_reset: 'monthly' },
        { type: 'tokens', credit_limit: 1000 },
      ],
    });
  });

  it('a blank or unreadable number goes as 0 for the API to refuse by its field', () => {
    expect(
      limitsBody({ ...NO_LIMITS, rate: [{ type: 'tokens', unit: 'rpd', value: '' }] }).rate_limits,
    ).toEqual([{ type: 'tokens', unit: 'rpd', value: 0 }]);
  });

  it('expiry: a local time becomes an ISO instant and back', () => {
    const iso = localToIso('2031-05-01T12:30');
    expect(iso).toBe(new Date('2031-05-01T12:30').toISOString());
    expect(isoToLocal(iso)).toBe('2031-05-01T12:30');
    expect(localToIso('')).toBeUndefined();
    expect(limitsBody({ ...NO_LIMITS, expiresAt: '2031-05-01T12:30' }).expires_at).toBe(iso);
  });

  it('reads an object back into form rows', () => {
    const state = limitsState({
      rate_limits: [{ type: 'requests', unit: 'rph', value: 5 }],
      usage_limits: [{ type: 'cost', credit_limit: 3, alert_threshold: null, periodic_reset: 'weekly' }],
      expires_at: null,
    });
    expect(state).toEqual({
      rate: [{ type: 'requests', unit: 'rph', value: '5' }],
      usage: [{ type: 'cost', credit_limit: '3', alert_threshold: '', periodic_reset: 'weekly' }],
      expiresAt: '',
    });
  });

  it('describes limits for the tables', () => {
    expect(describeRate({ type: 'requests', unit: 'rpm', value: 60 })).toBe('60 requests/min');
    expect(
      describeUsage({
        type: 'cost',
        credit_limit: 25,
        alert_threshold: 20,
        periodic_reset: 'monthly',
        current_usage: 1.5,
      }),
    ).toBe('1.5 of 25 USD, monthly (alert at 20)');
    expect(describeUsage({ type: 'tokens', credit_limit: 100, periodic_reset_days: 7 })).toBe(
      '100 tokens, every 7 days',
    );
  });
});
