// The rows analytics aggregate: partial totals from the hourly rollups for every whole hour of the
// range, plus raw request logs for the partial hours at its edges (and for whatever the rollups cannot
// answer: minute buckets and raw-only filters). Summing the union gives exact totals either way.
import type { CallerContext, LogFilter } from '@aigw/proto';
import { type RawBuilder, sql } from 'kysely';
import { scopeConditions } from './caller-scope.js';
import { dimensionConditions, rawOnlyConditions, rollupCompatible, timeConditions } from './log-filter.js';
import { all, type Condition, col } from './sql-parts.js';

const HOUR_MS = 3_600_000;

export type BucketUnit = 'minute' | 'hour' | 'day' | 'week' | 'month';

/** A grouping expression written once per relation (alias `r` raw rows, `u` rollups). */
export type KeyExpr = (alias: string) => RawBuilder<unknown>;

export interface SourceSpec {
  readonly caller: CallerContext | undefined;
  readonly filter: LogFilter;
  readonly key?: KeyExpr;
  readonly bucket?: BucketUnit;
}

/** Columns of every source row: key, bucket, then additive totals and the seen range. */
export const SOURCE_COLUMNS =
  'key, bucket, requests, errors, cache_hits, input_tokens, output_tokens, total_tokens, cost_micros, latency_ms_sum, first_seen_at, last_seen_at';

/** Splits [from, to) into raw edges and a whole-hour middle the rollups can answer. */
export function splitRange(
  fromMs: number,
  toMs: number,
): { rollup: { from: number; to: number } | null; raw: { from: number; to: number }[] } {
  const fullFrom = fromMs ? Math.ceil(fromMs / HOUR_MS) * HOUR_MS : 0;
  const fullTo = toMs ? Math.floor(toMs / HOUR_MS) * HOUR_MS : 0;
  if (fullFrom && fullTo && fullFrom >= fullTo) return { rollup: null, raw: [{ from: fromMs, to: toMs }] };
  const raw: { from: number; to: number }[] = [];
  if (fromMs && fromMs < fullFrom) raw.push({ from: fromMs, to: fullFrom });
  if (toMs && fullTo < toMs) raw.push({ from: fullTo, to: toMs });
  return { rollup: { from: fullFrom, to: fullTo }, raw };
}

/** The union of partial aggregates as a subquery, or null when the caller may see nothing. */
export function aggregateSource(spec: SourceSpec): RawBuilder<unknown> | null {
  const rawScope = scopeConditions(spec.caller, 'r');
  const rollupScope = scopeConditions(spec.caller, 'u');
  if (!rawScope || !rollupScope) return null;
  const f = spec.filter;
  const useRollups = rollupCompatible(f) && spec.bucket !== 'minute';
  const split = useRollups
    ? splitRange(f.fromMs, f.toMs)
    : { rollup: null, raw: [{ from: f.fromMs, to: f.toMs }] };
  const parts: RawBuilder<unknown>[] = [];
  if (split.rollup) parts.push(rollupPart(spec, rollupScope, split.rollup));
  const rawBase = [...rawScope, ...dimensionConditions(f, 'r'), ...rawOnlyConditions(f, 'r')];
  for (const range of split.raw)
    parts.push(rawPart(spec, [...rawBase, ...timeConditions(range.from, range.to, 'r')]));
  return sql`(${sql.join(parts, sql` union all `)})`;
}

function keyOf(spec: SourceSpec, alias: string): RawBuilder<unknown> {
  return spec.key ? sql`${spec.key(alias)}` : sql`''`;
}

function bucketOf(spec: SourceSpec, column: RawBuilder<unknown>): RawBuilder<unknown> {
  return spec.bucket ? sql`date_trunc(${spec.bucket}, ${column}, 'UTC')` : sql`null::timestamptz`;
}

function rollupPart(spec: SourceSpec, scope: Condition[], range: { from: number; to: number }) {
  const conditions = [...scope, ...dimensionConditions(spec.filter, 'u')];
  if (range.from) conditions.push(sql`${col('u', 'bucket')} >= ${new Date(range.from)}`);
  if (range.to) conditions.push(sql`${col('u', 'bucket')} < ${new Date(range.to)}`);
  return sql`select ${keyOf(spec, 'u')} as key, ${bucketOf(spec, col('u', 'bucket'))} as bucket,
    u.requests, u.errors, u.cache_hits, u.input_tokens, u.output_tokens, u.total_tokens, u.cost_micros,
    u.latency_ms_sum, u.first_seen_at, u.last_seen_at
    from request_rollups_hourly u where ${all(conditions)}`;
}

function rawPart(spec: SourceSpec, conditions: Condition[]) {
  return sql`select ${keyOf(spec, 'r')} as key, ${bucketOf(spec, col('r', 'received_at'))} as bucket,
    count(*)::bigint as requests,
    count(*) filter (where r.status_code >= 400)::bigint as errors,
    count(*) filter (where r.cache_status in (1, 2))::bigint as cache_hits,
    sum(r.input_tokens)::bigint as input_tokens, sum(r.output_tokens)::bigint as output_tokens,
    sum(r.total_tokens)::bigint as total_tokens, sum(r.cost_micros)::bigint as cost_micros,
    sum(r.latency_ms) as latency_ms_sum, min(r.received_at) as first_seen_at, max(r.received_at) as last_seen_at
    from request_logs r where ${all(conditions)} group by 1, 2`;
}

/** Raw rows only (percentiles, distinct users): scope, filter and time range. */
export function rawWhere(caller: CallerContext | undefined, f: LogFilter): Condition | null {
  const scope = scopeConditions(caller, 'r');
  if (!scope) return null;
  return all([
    ...scope,
    ...timeConditions(f.fromMs, f.toMs, 'r'),
    ...dimensionConditions(f, 'r'),
    ...rawOnlyConditions(f, 'r'),
  ]);
}
