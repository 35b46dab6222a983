import { PeriodicReset } from '@aigw/proto';
import { describe, expect, it } from 'vitest';
import { periodAt } from './periods.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();
const spec = (periodicReset: PeriodicReset, periodicResetDays = 0, next = '') => ({
  periodicReset,
  periodicResetDays,
  nextUsageResetAtMs: next ? at(next) : 0,
});

describe('periodAt', () => {
  it('never resets without a reset setting', () => {
    expect(periodAt(spec(PeriodicReset.UNSPECIFIED), at('2026-03-04T05:06:07Z'))).toEqual({
      startMs: 0,
      endMs: 0,
    });
  });

  it.each([
    // every N days from the anchor, before and after it
    [
      spec(PeriodicReset.UNSPECIFIED, 10, '2026-01-11T00:00:00Z'),
      '2026-01-05T12:00:00Z',
      '2026-01-01T00:00:00.000Z',
      '2026-01-11T00:00:00.000Z',
    ],
    [
      spec(PeriodicReset.UNSPECIFIED, 10, '2026-01-11T00:00:00Z'),
      '2026-01-11T00:00:00Z',
      '2026-01-11T00:00:00.000Z',
      '2026-01-21T00:00:00.000Z',
    ],
    [
      spec(PeriodicReset.UNSPECIFIED, 10, '2026-01-11T00:00:00Z'),
      '2026-02-15T23:59:59Z',
      '2026-02-10T00:00:00.000Z',
      '2026-02-20T00:00:00.000Z',
    ],
    [
      spec(PeriodicReset.UNSPECIFIED, 1),
      '2026-02-15T23:59:59Z',
      '2026-02-15T00:00:00.000Z',
      '2026-02-16T00:00:00.000Z',
    ],
    // weekly: anchored at its time, else Mondays 00:00 UTC
    [
      spec(PeriodicReset.WEEKLY, 0, '2026-06-03T09:30:00Z'),
      '2026-06-20T08:00:00Z',
      '2026-06-17T09:30:00.000Z',
      '2026-06-24T09:30:00.000Z',
    ],
    [
      spec(PeriodicReset.WEEKLY),
      '2026-11-25T04:00:00Z',
      '2026-11-23T00:00:00.000Z',
      '2026-11-30T00:00:00.000Z',
    ],
    // monthly: same day and time, clamped to short months; before the anchor counts back
    [
      spec(PeriodicReset.MONTHLY, 0, '2026-01-31T10:00:00Z'),
      '2026-02-28T09:00:00Z',
      '2026-01-31T10:00:00.000Z',
      '2026-02-28T10:00:00.000Z',
    ],
    [
      spec(PeriodicReset.MONTHLY, 0, '2026-01-31T10:00:00Z'),
      '2026-03-01T00:00:00Z',
      '2026-02-28T10:00:00.000Z',
      '2026-03-31T10:00:00.000Z',
    ],
    [
      spec(PeriodicReset.MONTHLY, 0, '2026-01-31T10:00:00Z'),
      '2025-12-15T00:00:00Z',
      '2025-11-30T10:00:00.000Z',
      '2025-12-31T10:00:00.000Z',
    ],
    [
      spec(PeriodicReset.MONTHLY, 0, '2024-01-31T00:00:00Z'),
      '2024-02-29T12:00:00Z',
      '2024-02-29T00:00:00.000Z',
      '2024-03-31T00:00:00.000Z',
    ],
    [
      spec(PeriodicReset.MONTHLY),
      '2026-11-25T04:00:00Z',
      '2026-11-01T00:00:00.000Z',
      '2026-12-01T00:00:00.000Z',
    ],
    // periodic_reset_days wins over periodic_reset (they are mutually exclusive upstream)
    [
      spec(PeriodicReset.MONTHLY, 2, '2026-01-01T00:00:00Z'),
      '2026-01-04T01:00:00Z',
      '2026-01-03T00:00:00.000Z',
      '2026-01-05T00:00:00.000Z',
    ],
  ])('%o at %s is [%s, %s)', (s, now, start, end) => {
    const p = periodAt(s, at(now));
    expect([iso(p.startMs), iso(p.endMs)]).toEqual([start, end]);
  });

  it('gives the same period for any anchor of the same series (the control plane may advance it)', () => {
    const now = at('2026-05-17T12:00:00Z');
    for (const next of ['2026-01-15T00:00:00Z', '2026-06-15T00:00:00Z', '2027-03-15T00:00:00Z']) {
      expect(periodAt(spec(PeriodicReset.MONTHLY, 0, next), now)).toEqual({
        startMs: at('2026-05-15T00:00:00Z'),
        endMs: at('2026-06-15T00:00:00Z'),
      });
    }
  });
});
