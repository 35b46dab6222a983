// The state table of spec part 3 as a pure function.
import { describe, expect, it } from 'vitest';
import { alertResets } from './policy-alerts.js';

describe('alertResets', () => {
  const limit = (credit_limit: number, alert_threshold: number | null) => ({ credit_limit, alert_threshold });

  it('raising the credit limit resets both alerts', () => {
    expect(alertResets(limit(100, 80), limit(150, 80))).toEqual({ threshold: true, exhausted: true });
    expect(alertResets(limit(100, null), limit(100.01, null))).toEqual({ threshold: true, exhausted: true });
  });

  it('raising the threshold or setting it to null resets the threshold alert only', () => {
    expect(alertResets(limit(100, 80), limit(100, 90))).toEqual({ threshold: true, exhausted: false });
    expect(alertResets(limit(100, 80), limit(100, null))).toEqual({ threshold: true, exhausted: false });
  });

  it('lowering, keeping, or setting a first threshold resets nothing', () => {
    const none = { threshold: false, exhausted: false };
    expect(alertResets(limit(100, 80), limit(90, 80))).toEqual(none);
    expect(alertResets(limit(100, 80), limit(100, 70))).toEqual(none);
    expect(alertResets(limit(100, 80), limit(100, 80))).toEqual(none);
    expect(alertResets(limit(100, null), limit(100, 50))).toEqual(none);
    expect(alertResets(limit(100, null), limit(100, null))).toEqual(none);
  });
});
