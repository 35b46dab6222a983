import { describe, expect, it } from 'vitest';
import { fromMicros, toMicros } from './model-pricing.money.js';

describe('toMicros', () => {
  it('converts decimals exactly, never through binary rounding', () => {
    expect(toMicros(2.5)).toBe(2_500_000);
    expect(toMicros(0.1)).toBe(100_000);
    expect(toMicros(0.3)).toBe(300_000);
    expect(toMicros(0.000001)).toBe(1);
    expect(toMicros(1e-6)).toBe(1);
    expect(toMicros(0.00875)).toBe(8_750);
    expect(toMicros(1.1)).toBe(1_100_000);
    expect(toMicros(0)).toBe(0);
    expect(toMicros(1_000_000)).toBe(1_000_000_000_000);
    expect(toMicros(123456.654321)).toBe(123_456_654_321);
  });

  it('refuses more than six decimals, negatives, non-finite values and values above the maximum', () => {
    for (const bad of [0.0000001, 1e-7, 2.5000001, -0.01, -1, Number.NaN, Infinity, 1_000_000.000001, 1e7]) {
      expect(toMicros(bad), String(bad)).toBeNull();
    }
  });

  it('round-trips through fromMicros to the same decimal', () => {
    for (const value of [0, 0.000001, 0.075, 0.31, 2.19, 18.75, 600, 999_999.999999]) {
      expect(fromMicros(toMicros(value)!)).toBe(value);
    }
    expect(fromMicros('2500000')).toBe(2.5);
  });
});
