import { describe, expect, test } from 'vitest';
import { formatPercent, formatValue, numeric, unitOf } from './analytics-format.js';

describe('analytics values', () => {
  test('ratios are percentages, small ones with two decimals', () => {
    expect(formatPercent(0.152)).toBe('15.2%');
    expect(formatPercent(0.0123)).toBe('1.23%');
    expect(formatPercent(0)).toBe('0.0%');
    expect(formatPercent(null)).toBe('–');
  });

  test('each API unit has its format; an unknown unit is a count', () => {
    expect(unitOf('ratio')).toBe('ratio');
    expect(unitOf('furlongs')).toBe('count');
    expect(formatValue(1234567, 'count')).toBe('1,234,567');
    expect(formatValue(2.5, 'usd')).toBe('$2.5000');
    expect(formatValue(1430, 'ms')).toBe('1.43 s');
    expect(formatValue(0.4, 'ratio')).toBe('40.0%');
  });

  test('group columns may arrive as numbers or numeric strings; anything else is absent', () => {
    expect(numeric(3)).toBe(3);
    expect(numeric('0.25')).toBe(0.25);
    expect(numeric('')).toBeNull();
    expect(numeric(null)).toBeNull();
    expect(numeric('2026-11-27T00:00:00Z')).toBeNull();
  });
});
