// The Analytics page's state as it lives in the URL query (time range, group-by, group page) and
// the API query it becomes. Pure: the page reads and writes it, the unit tests check it.

export const PRESETS = {
  '1h': 3_600_000,
  '24h': 86_400_000,
  '7d': 7 * 86_400_000,
  '30d': 30 * 86_400_000,
} as const;
export type Preset = keyof typeof PRESETS;
export const PRESET_NAMES = Object.keys(PRESETS) as Preset[];
export const DEFAULT_PRESET: Preset = '24h';

/** The eight dimensions of GET /analytics/groups/{groupBy}, with their column titles. */
export const GROUP_BYS = {
  ai_service: 'AI service',
  model: 'Model',
  status_code: 'Status code',
  api_key: 'API key',
  config: 'Config',
  workspace: 'Workspace',
  provider: 'Provider',
  prompt: 'Prompt',
} as const;
export type GroupBy = keyof typeof GROUP_BYS;
export const GROUP_BY_NAMES = Object.keys(GROUP_BYS) as GroupBy[];
export const DEFAULT_GROUP_BY: GroupBy = 'ai_service';

/** The extra columns the grouped table asks for (the API aggregates them). */
export const GROUP_COLUMNS = [
  'cost',
  'total_tokens',
  'avg_latency',
  'p95_latency',
  'p99_latency',
  'error_count',
  'success_rate',
  'cache_hit_rate',
  'last_seen',
] as const;
export const GROUP_PAGE_SIZE = 20;

export type Range =
  | { readonly kind: 'preset'; readonly preset: Preset }
  /** ISO instants as the user chose them; checked by the API (its error is shown). */
  | { readonly kind: 'custom'; readonly from: string; readonly to: string };

export interface AnalyticsState {
  readonly range: Range;
  readonly groupBy: GroupBy;
  /** 0-based page of the grouped table. */
  readonly page: number;
}

const isPreset = (v: string | null): v is Preset => v !== null && v in PRESETS;
const isGroupBy = (v: string | null): v is GroupBy => v !== null && v in GROUP_BYS;

/** Reads the state from the URL query; anything unknown falls back to the defaults. */
export function readState(search: URLSearchParams): AnalyticsState {
  const rangeParam = search.get('range');
  const from = search.get('from');
  const to = search.get('to');
  const range: Range =
    rangeParam === 'custom' && from && to
      ? { kind: 'custom', from, to }
      : { kind: 'preset', preset: isPreset(rangeParam) ? rangeParam : DEFAULT_PRESET };
  const group = search.get('group');
  const page = Number(search.get('page'));
  return {
    range,
    groupBy: isGroupBy(group) ? group : DEFAULT_GROUP_BY,
    page: Number.isInteger(page) && page > 0 ? page : 0,
  };
}

/** The URL query of a state; defaults are left out so that the plain page URL stays plain. */
export function writeState(state: AnalyticsState): URLSearchParams {
  const out = new URLSearchParams();
  if (state.range.kind === 'custom') {
    out.set('range', 'custom');
    out.set('from', state.range.from);
    out.set('to', state.range.to);
  } else if (state.range.preset !== DEFAULT_PRESET) out.set('range', state.range.preset);
  if (state.groupBy !== DEFAULT_GROUP_BY) out.set('group', state.groupBy);
  if (state.page > 0) out.set('page', String(state.page));
  return out;
}

/**
 * The API's time filter: a preset ends at `nowMs` (the page's last refresh, so that every call of
 * one view covers the same instant range), a custom range is passed as chosen.
 */
export function timeQuery(range: Range, nowMs: number): { start_time: string; end_time: string } {
  if (range.kind === 'custom') return { start_time: range.from, end_time: range.to };
  return {
    start_time: new Date(nowMs - PRESETS[range.preset]).toISOString(),
    end_time: new Date(nowMs).toISOString(),
  };
}

/** `<input type="datetime-local">` value (local time, minutes) of an ISO instant; '' when invalid. */
export function toLocalInput(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** ISO instant of a datetime-local value (read as local time); undefined when empty or invalid. */
export function fromLocalInput(value: string): string | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
