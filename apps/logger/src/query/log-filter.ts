// LogFilter as SQL conditions over raw request logs, and over the hourly rollups for the part of a
// filter the rollups can answer (every dimension they keep; not trace, metadata, ranges, cache or user).
import type { LogFilter } from '@aigw/proto';
import { sql } from 'kysely';
import { invalidArgument } from './query-error.js';
import { anyOf, type Condition, col } from './sql-parts.js';

export const EMPTY_FILTER: LogFilter = {
  fromMs: 0,
  toMs: 0,
  workspaceIds: [],
  apiKeyIds: [],
  providerSlugs: [],
  aiServices: [],
  models: [],
  statusCodes: [],
  traceId: '',
  metadata: [],
  configIds: [],
  promptIds: [],
  cacheStatuses: [],
  userIds: [],
};

export function normaliseFilter(filter: LogFilter | undefined): LogFilter {
  const f = { ...EMPTY_FILTER, ...filter };
  if (f.fromMs < 0 || f.toMs < 0) throw invalidArgument('filter.from_ms and filter.to_ms must be >= 0');
  if (f.fromMs && f.toMs && f.fromMs >= f.toMs)
    throw invalidArgument('filter.from_ms must be before filter.to_ms');
  for (const [name, range] of [
    ['cost_micros', f.costMicros],
    ['total_tokens', f.totalTokens],
  ] as const) {
    if (range?.min !== undefined && range.max !== undefined && range.min > range.max)
      throw invalidArgument(`filter.${name}.min must not exceed max`);
  }
  for (const m of f.metadata)
    if (m.key === '') throw invalidArgument('filter.metadata[].key must not be empty');
  return f;
}

/** True when the rollups hold every dimension the filter narrows on. */
export function rollupCompatible(f: LogFilter): boolean {
  return (
    f.traceId === '' &&
    f.metadata.length === 0 &&
    f.costMicros?.min === undefined &&
    f.costMicros?.max === undefined &&
    f.totalTokens?.min === undefined &&
    f.totalTokens?.max === undefined &&
    f.cacheStatuses.length === 0 &&
    f.userIds.length === 0
  );
}

/** Conditions on the dimensions raw rows and rollups share (alias `a`). */
export function dimensionConditions(f: LogFilter, a: string): Condition[] {
  const out: Condition[] = [];
  const text = (values: readonly string[], column: string) => {
    if (values.length > 0) out.push(anyOf(col(a, column), values, 'text'));
  };
  text(f.workspaceIds, 'workspace_id');
  text(f.apiKeyIds, 'api_key_id');
  text(f.providerSlugs, 'provider_slug');
  text(f.aiServices, 'ai_service');
  text(f.models, 'model');
  text(f.configIds, 'config_id');
  text(f.promptIds, 'prompt_id');
  if (f.statusCodes.length > 0) out.push(anyOf(col(a, 'status_code'), f.statusCodes, 'int'));
  return out;
}

/** Conditions only raw rows can answer. */
export function rawOnlyConditions(f: LogFilter, a: string): Condition[] {
  const out: Condition[] = [];
  if (f.traceId !== '') out.push(sql`${col(a, 'trace_id')} = ${f.traceId}`);
  if (f.metadata.length > 0) {
    // Containment uses the GIN index; repeated keys must all match, hence one object per filter.
    for (const m of f.metadata)
      out.push(sql`${col(a, 'metadata')} @> ${JSON.stringify({ [m.key]: m.value })}::jsonb`);
  }
  const range = (r: { min?: number | undefined; max?: number | undefined } | undefined, column: string) => {
    if (r?.min !== undefined) out.push(sql`${col(a, column)} >= ${r.min}`);
    if (r?.max !== undefined) out.push(sql`${col(a, column)} <= ${r.max}`);
  };
  range(f.costMicros, 'cost_micros');
  range(f.totalTokens, 'total_tokens');
  if (f.cacheStatuses.length > 0) out.push(anyOf(col(a, 'cache_status'), f.cacheStatuses, 'int'));
  if (f.userIds.length > 0) out.push(anyOf(col(a, 'user_id'), f.userIds, 'text'));
  return out;
}

/** received_at within [from, to) of raw rows (alias `a`). */
export function timeConditions(fromMs: number, toMs: number, a: string, column = 'received_at'): Condition[] {
  const out: Condition[] = [];
  if (fromMs) out.push(sql`${col(a, column)} >= ${new Date(fromMs)}`);
  if (toMs) out.push(sql`${col(a, column)} < ${new Date(toMs)}`);
  return out;
}

/** Every condition of the filter over raw rows. */
export function rawConditions(f: LogFilter, a: string): Condition[] {
  return [...timeConditions(f.fromMs, f.toMs, a), ...dimensionConditions(f, a), ...rawOnlyConditions(f, a)];
}
