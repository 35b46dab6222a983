import { describe, expect, it } from 'vitest';
import { logFilterFields } from './log-filter.schema.js';

const time = logFilterFields.start_time;

describe('start_time / end_time', () => {
  it.each([
    ['2026-11-01T00:00:00Z', Date.UTC(2026, 10, 1)],
    ['2026-11-01T02:00:00.500+02:00', Date.UTC(2026, 10, 1, 0, 0, 0, 500)],
    ['2026-11-01', Date.UTC(2026, 10, 1)],
    ['1793577600000', 1793577600000],
  ])('reads %s as ISO 8601 or epoch milliseconds', (text, ms) => {
    expect(time.parse(text)).toBe(ms);
  });

  it.each([
    "' OR '1'='1",
    '$1',
    '-1',
    '1 Nov 2026',
    'Sun, 01 Nov 2026 00:00:00 GMT',
    '2026-11-01T00:00:00',
    '2026-02-30',
    '2026-11-01 00:00:00Z',
    '0',
  ])('refuses %j', (text) => {
    const result = time.safeParse(text);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/^must be an ISO 8601 time/);
  });
});
