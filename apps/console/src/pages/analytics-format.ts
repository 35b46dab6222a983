// Values of the analytics API in its units (count, usd, ms, ratio), formatted for cards, axes and
// tables.
import { formatMs, formatNumber, formatUsd } from '../components/format.js';

export type Unit = 'count' | 'usd' | 'ms' | 'ratio';

export function formatPercent(ratio: number | null | undefined): string {
  if (ratio === null || ratio === undefined) return '–';
  const percent = ratio * 100;
  return `${percent.toFixed(percent !== 0 && percent < 10 ? 2 : 1)}%`;
}

export function formatValue(value: number | null | undefined, unit: Unit): string {
  switch (unit) {
    case 'usd':
      return formatUsd(value);
    case 'ms':
      return formatMs(value);
    case 'ratio':
      return formatPercent(value);
    default:
      return formatNumber(value);
  }
}

/** The API's unit name as ours (an unknown one is shown as a plain number). */
export function unitOf(name: string): Unit {
  return name === 'usd' || name === 'ms' || name === 'ratio' ? name : 'count';
}

/** A number (or numeric string) from a group row's column; null when absent. */
export function numeric(value: number | string | null | undefined): number | null {
  if (value === null || value === undefined || value === '') return null;
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) ? n : null;
}
