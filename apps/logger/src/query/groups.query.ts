// GetGroups: request totals by one dimension (spec 4.5). Additive columns come from the aggregate
// source (rollups plus raw edges); percentiles read raw rows, only for the groups of the page.
import {
  type GetGroupsRequest,
  type GetGroupsResponse,
  type LogGroup,
  LogGroupBy,
  LogGroupColumn,
} from '@aigw/proto';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { readInOneSnapshot } from '../db/page-read.js';
import type { LogsDatabase } from '../db/schema.js';
import { aggregateSource, type KeyExpr, rawWhere } from './aggregate-source.js';
import { normaliseFilter } from './log-filter.js';
import { invalidArgument } from './query-error.js';
import { col } from './sql-parts.js';

const text =
  (column: string): KeyExpr =>
  (a) =>
    sql`coalesce(${col(a, column)}, '')`;

/** The column each dimension groups on; a missing value is the group ''. */
export const GROUP_KEYS: Readonly<Record<number, KeyExpr>> = {
  [LogGroupBy.AI_SERVICE]: text('ai_service'),
  [LogGroupBy.MODEL]: text('model'),
  [LogGroupBy.STATUS_CODE]: (a) => sql`${col(a, 'status_code')}::text`,
  [LogGroupBy.API_KEY]: text('api_key_id'),
  [LogGroupBy.CONFIG]: text('config_id'),
  [LogGroupBy.WORKSPACE]: text('workspace_id'),
  [LogGroupBy.PROVIDER]: text('provider_slug'),
  [LogGroupBy.PROMPT]: text('prompt_id'),
};

const KNOWN_COLUMNS = new Set(
  Object.values(LogGroupColumn).filter(
    (v): v is LogGroupColumn =>
      typeof v === 'number' && v !== LogGroupColumn.UNSPECIFIED && v !== LogGroupColumn.UNRECOGNIZED,
  ),
);

export function pageOf(pageSize: number, currentPage: number): { limit: number; offset: number } {
  const limit = pageSize === 0 ? 50 : Math.min(pageSize, 500);
  return { limit, offset: currentPage * limit };
}

interface TotalsRow {
  key: string;
  requests: string;
  errors: string;
  cache_hits: string;
  input_tokens: string;
  output_tokens: string;
  total_tokens: string;
  cost_micros: string;
  latency_ms_sum: number;
  first_seen_at: Date;
  last_seen_at: Date;
  total_groups: string;
}

export async function getGroups(
  db: Kysely<LogsDatabase>,
  request: GetGroupsRequest,
): Promise<GetGroupsResponse> {
  const keyExpr = GROUP_KEYS[request.groupBy];
  if (!keyExpr) throw invalidArgument('group_by must be one of the LogGroupBy values');
  for (const c of request.columns)
    if (!KNOWN_COLUMNS.has(c)) throw invalidArgument(`unknown group column ${c}`);
  const filter = normaliseFilter(request.filter);
  const source = aggregateSource({ caller: request.caller, filter, key: keyExpr });
  if (!source) return { groups: [], total: 0 };
  const { limit, offset } = pageOf(request.pageSize, request.currentPage);
  // The window count is on every row; a page past the end has none, so it counts separately then,
  // in the page's snapshot (a count read later could name groups the page did not see).
  const { rows, total } = await readInOneSnapshot(db, async (tx) => {
    const { rows } = await sql<TotalsRow>`
      select key, sum(requests)::bigint as requests, sum(errors)::bigint as errors,
        sum(cache_hits)::bigint as cache_hits, sum(input_tokens)::bigint as input_tokens,
        sum(output_tokens)::bigint as output_tokens, sum(total_tokens)::bigint as total_tokens,
        sum(cost_micros)::bigint as cost_micros, sum(latency_ms_sum)::float8 as latency_ms_sum,
        min(first_seen_at) as first_seen_at, max(last_seen_at) as last_seen_at,
        count(*) over ()::bigint as total_groups
      from ${source} s group by key
      order by sum(requests) desc, key asc limit ${limit} offset ${offset}`.execute(tx);
    return { rows, total: rows[0] ? Number(rows[0].total_groups) : await countGroups(tx, source) };
  });
  const columns = new Set(request.columns);
  const percentiles =
    columns.has(LogGroupColumn.P95_LATENCY) || columns.has(LogGroupColumn.P99_LATENCY)
      ? await groupPercentiles(
          db,
          request,
          keyExpr,
          rows.map((r) => r.key),
        )
      : new Map<string, { p95: number; p99: number }>();
  return {
    groups: rows.map((row) => toGroup(row, columns, percentiles.get(row.key))),
    total,
  };
}

async function countGroups(db: Kysely<LogsDatabase>, source: RawBuilder<unknown>): Promise<number> {
  const { rows } = await sql<{ n: string }>`select count(distinct key)::bigint as n from ${source} s`.execute(
    db,
  );
  return Number(rows[0]?.n ?? 0);
}

async function groupPercentiles(
  db: Kysely<LogsDatabase>,
  request: GetGroupsRequest,
  keyExpr: KeyExpr,
  keys: readonly string[],
): Promise<Map<string, { p95: number; p99: number }>> {
  const where = rawWhere(request.caller, normaliseFilter(request.filter));
  if (!where || keys.length === 0) return new Map();
  const { rows } = await sql<{ key: string; p95: number; p99: number }>`
    select ${keyExpr('r')} as key,
      percentile_cont(0.95) within group (order by r.latency_ms) as p95,
      percentile_cont(0.99) within group (order by r.latency_ms) as p99
    from request_logs r where ${where} and ${keyExpr('r')} = any(${[...keys]}::text[]) group by 1`.execute(
    db,
  );
  return new Map(rows.map((r) => [r.key, { p95: r.p95, p99: r.p99 }]));
}

function toGroup(
  row: TotalsRow,
  columns: ReadonlySet<LogGroupColumn>,
  pct: { p95: number; p99: number } | undefined,
): LogGroup {
  const requests = Number(row.requests);
  const per = (total: string | number) => (requests === 0 ? 0 : Number(total) / requests);
  const group: LogGroup = { key: row.key, requestCount: requests };
  for (const column of columns) {
    switch (column) {
      case LogGroupColumn.COST:
        group.cost = { amountMicros: Number(row.cost_micros), currency: 'USD' };
        break;
      case LogGroupColumn.TOTAL_TOKENS:
        group.totalTokens = Number(row.total_tokens);
        break;
      case LogGroupColumn.AVG_TOKENS:
        group.avgTokens = per(row.total_tokens);
        break;
      case LogGroupColumn.AVG_INPUT_TOKENS:
        group.avgInputTokens = per(row.input_tokens);
        break;
      case LogGroupColumn.AVG_OUTPUT_TOKENS:
        group.avgOutputTokens = per(row.output_tokens);
        break;
      case LogGroupColumn.AVG_LATENCY:
        group.avgLatencyUs = per(row.latency_ms_sum) * 1000;
        break;
      case LogGroupColumn.P95_LATENCY:
        group.p95LatencyUs = (pct?.p95 ?? 0) * 1000;
        break;
      case LogGroupColumn.P99_LATENCY:
        group.p99LatencyUs = (pct?.p99 ?? 0) * 1000;
        break;
      case LogGroupColumn.SUCCESS_RATE:
        group.successRate = 1 - per(row.errors);
        break;
      case LogGroupColumn.ERROR_COUNT:
        group.errorCount = Number(row.errors);
        break;
      case LogGroupColumn.CACHE_HIT_RATE:
        group.cacheHitRate = per(row.cache_hits);
        break;
      case LogGroupColumn.LAST_SEEN:
        group.lastSeenAtMs = row.last_seen_at.getTime();
        break;
      case LogGroupColumn.FIRST_SEEN:
        group.firstSeenAtMs = row.first_seen_at.getTime();
        break;
    }
  }
  return group;
}
