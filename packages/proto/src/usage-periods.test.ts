import { describe, expect, it } from 'vitest';
import { PeriodicReset } from './gen/aigw/v1/common.js';
import { NEVER_RESETS, usagePeriodAt } from './usage-periods.js';

const ms = (iso: string) => Date.parse(iso);
const span = (p: { startMs: number; endMs: number }) => [
  new Date(p.startMs).toISOString(),
  new Date(p.endMs).toISOString(),
];
const spec = (periodicReset: PeriodicReset, periodicResetDays = 0, anchor = '') => ({
  periodicReset,
  periodicResetDays,
  nextUsageResetAtMs: anchor ? ms(anchor) : 0,
});

describe('usagePeriodAt', () => {
  it('has one period starting at 0 for a limit that never resets', () => {
    expect(usagePeriodAt(spec(PeriodicReset.UNSPECIFIED), ms('2031-07-09T10:00:00Z'))).toBe(NEVER_RESETS);
    expect(NEVER_RESETS).toEqual({ startMs: 0, endMs: 0 });
  });

  it.each([
    [
      'unanchored monthly is the UTC calendar month',
      spec(PeriodicReset.MONTHLY),
      '2026-02-28T23:59:59Z',
      ['2026-02-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z'],
    ],
    [
      'unanchored weekly starts on Monday 00:00 UTC',
      spec(PeriodicReset.WEEKLY),
      '2026-11-29T23:00:00Z',
      ['2026-11-23T00:00:00.000Z', '2026-11-30T00:00:00.000Z'],
    ],
    [
      'anchored weekly keeps the anchor time',
      spec(PeriodicReset.WEEKLY, 0, '2026-12-02T06:00:00Z'),
      '2026-11-25T06:00:00Z',
      ['2026-11-25T06:00:00.000Z', '2026-12-02T06:00:00.000Z'],
    ],
    [
      'every 3 days from a future anchor',
      spec(PeriodicReset.UNSPECIFIED, 3, '2026-11-30T00:00:00Z'),
      '2026-11-25T12:00:00Z',
      ['2026-11-24T00:00:00.000Z', '2026-11-27T00:00:00.000Z'],
    ],
    [
      'an anchor on the 30th clamps to February',
      spec(PeriodicReset.MONTHLY, 0, '2027-01-30T08:00:00Z'),
      '2027-03-10T00:00:00Z',
      ['2027-02-28T08:00:00.000Z', '2027-03-30T08:00:00.000Z'],
    ],
    [
      'a monthly anchor counts back before it',
      spec(PeriodicReset.MONTHLY, 0, '2027-05-15T00:00:00Z'),
      '2027-01-20T00:00:00Z',
      ['2027-01-15T00:00:00.000Z', '2027-02-15T00:00:00.000Z'],
    ],
    [
      'days win over the reset kind',
      spec(PeriodicReset.WEEKLY, 1, '2026-11-26T00:00:00Z'),
      '2026-11-25T18:00:00Z',
      ['2026-11-25T00:00:00.000Z', '2026-11-26T00:00:00.000Z'],
    ],
  ] as const)('%s', (_name, s, now, expected) => {
    expect(span(usagePeriodAt(s, ms(now)))).toEqual(expected);
  });

  it('is the same period whichever reset of the series anchors it', () => {
    const now = ms('2026-11-25T04:00:00Z');
    const periods = ['2026-10-10T00:00:00Z', '2026-12-10T00:00:00Z', '2028-01-10T00:00:00Z'].map((a) =>
      usagePeriodAt(spec(PeriodicReset.MONTHLY, 0, a), now),
    );
    for (const p of periods)
      expect(span(p)).toEqual(['2026-11-10T00:00:00.000Z', '2026-12-10T00:00:00.000Z']);
  });
});
