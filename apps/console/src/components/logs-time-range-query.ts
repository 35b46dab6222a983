// Time ranges of the list pages (logs, audit, feedback) as URL query parameters: a preset kept
// relative (`range=24h`: a shared link always shows the last 24 hours when opened) or a custom
// `start_time` / `end_time` (ISO 8601 UTC, what the API accepts), turned into the API's
// start_time/end_time when a page loads.

export const RANGE_PRESETS = [
  { value: '15m', label: 'Last 15 minutes', ms: 15 * 60_000 },
  { value: '1h', label: 'Last hour', ms: 3_600_000 },
  { value: '24h', label: 'Last 24 hours', ms: 86_400_000 },
  { value: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
  { value: '30d', label: 'Last 30 days', ms: 30 * 86_400_000 },
] as const;

export const TIME_PARAMS = ['range', 'start_time', 'end_time'] as const;

export interface TimeQuery {
  start_time?: string;
  end_time?: string;
}

/** The API's time filter for the URL's range at `nowMs`; an unknown preset is ignored (any time). */
export function timeQuery(search: URLSearchParams, nowMs: number): TimeQuery {
  const preset = RANGE_PRESETS.find((p) => p.value === search.get('range'));
  if (preset) return { start_time: new Date(nowMs - preset.ms).toISOString() };
  const out: TimeQuery = {};
  const start = search.get('start_time');
  const end = search.get('end_time');
  if (start) out.start_time = start;
  if (end) out.end_time = end;
  return out;
}

/**
 * A `<input type="datetime-local">` value (the browser's local time, no zone) as ISO 8601 UTC, or
 * '' for an empty or unreadable one.
 */
export function localInputToIso(value: string): string {
  if (!value) return '';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? '' : date.toISOString();
}

/** ISO 8601 as a `datetime-local` value in the browser's zone (minutes), '' when unreadable. */
export function isoToLocalInput(iso: string | null): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
