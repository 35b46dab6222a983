// GET /logs/groups/:groupBy and /analytics/groups/:groupBy (spec 4.5): request totals by one
// dimension, with the extra columns asked for in `columns`.
import { type LogGroup, LogGroupBy, LogGroupColumn } from '@aigw/proto';
import { z } from 'zod';
import { csvEnum, listSchema, pageQuery, toList } from '../http/list.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { requireAnalytics, visibilityOf } from './caller-context.js';
import { logFilterFields, toLogFilter } from './log-filter.schema.js';
import { iso, loggerOf } from './logs-api.context.js';

const GROUP_BY = {
  ai_service: LogGroupBy.AI_SERVICE,
  model: LogGroupBy.MODEL,
  status_code: LogGroupBy.STATUS_CODE,
  api_key: LogGroupBy.API_KEY,
  config: LogGroupBy.CONFIG,
  workspace: LogGroupBy.WORKSPACE,
  provider: LogGroupBy.PROVIDER,
  prompt: LogGroupBy.PROMPT,
} as const;

const COLUMNS = {
  cost: LogGroupColumn.COST,
  total_tokens: LogGroupColumn.TOTAL_TOKENS,
  avg_tokens: LogGroupColumn.AVG_TOKENS,
  avg_input_tokens: LogGroupColumn.AVG_INPUT_TOKENS,
  avg_output_tokens: LogGroupColumn.AVG_OUTPUT_TOKENS,
  avg_latency: LogGroupColumn.AVG_LATENCY,
  p95_latency: LogGroupColumn.P95_LATENCY,
  p99_latency: LogGroupColumn.P99_LATENCY,
  success_rate: LogGroupColumn.SUCCESS_RATE,
  error_count: LogGroupColumn.ERROR_COUNT,
  cache_hit_rate: LogGroupColumn.CACHE_HIT_RATE,
  last_seen: LogGroupColumn.LAST_SEEN,
  first_seen: LogGroupColumn.FIRST_SEEN,
} as const;

type ColumnName = keyof typeof COLUMNS;
const COLUMN_NAMES = Object.keys(COLUMNS) as [ColumnName, ...ColumnName[]];

const params = z
  .object({ groupBy: z.enum(Object.keys(GROUP_BY) as [keyof typeof GROUP_BY, ...(keyof typeof GROUP_BY)[]]) })
  .strict();
const query = z
  .object({ ...logFilterFields, ...pageQuery, columns: csvEnum(COLUMN_NAMES).optional() })
  .strict();

const groupSchema = z
  .object({ key: z.string(), request_count: z.number().int() })
  .extend(
    Object.fromEntries(COLUMN_NAMES.map((c) => [c, z.union([z.number(), z.string()]).nullable().optional()])),
  )
  .describe('`key` is the group value ("" for requests without one); each requested column is present');

const ms = (us: number | undefined) => (us ?? 0) / 1000;

/** A group with exactly the requested columns, in the API's units (USD, milliseconds, ISO times). */
export function groupToApi(g: LogGroup, columns: readonly ColumnName[]): Record<string, unknown> {
  const value: Record<ColumnName, unknown> = {
    cost: (g.cost?.amountMicros ?? 0) / 1e6,
    total_tokens: g.totalTokens ?? 0,
    avg_tokens: g.avgTokens ?? 0,
    avg_input_tokens: g.avgInputTokens ?? 0,
    avg_output_tokens: g.avgOutputTokens ?? 0,
    avg_latency: ms(g.avgLatencyUs),
    p95_latency: ms(g.p95LatencyUs),
    p99_latency: ms(g.p99LatencyUs),
    success_rate: g.successRate ?? 0,
    error_count: g.errorCount ?? 0,
    cache_hit_rate: g.cacheHitRate ?? 0,
    last_seen: iso(g.lastSeenAtMs),
    first_seen: iso(g.firstSeenAtMs),
  };
  const out: Record<string, unknown> = { key: g.key, request_count: g.requestCount };
  for (const c of columns) out[c] = value[c];
  return out;
}

function groupsRoute(path: string, tag: string, analytics: boolean): RouteDefinition {
  return defineRoute({
    method: 'get',
    path,
    tag,
    summary: analytics ? 'Group analytics by one dimension' : 'Group logs by one dimension',
    scope: analytics ? 'analytics.view' : 'logs.list',
    level: 'workspace',
    params,
    query,
    response: listSchema(groupSchema),
    async handler(ctx) {
      const visibility = await visibilityOf(ctx.db, ctx.principal);
      if (analytics) requireAnalytics(visibility);
      const columns = ctx.query.columns ?? [];
      const response = await loggerOf(ctx).call('getGroups', {
        caller: visibility.caller,
        filter: await toLogFilter(ctx.db, ctx.principal, ctx.query),
        groupBy: GROUP_BY[ctx.params.groupBy],
        columns: columns.map((c) => COLUMNS[c]),
        pageSize: ctx.query.page_size,
        currentPage: ctx.query.current_page,
      });
      return toList(
        response.groups.map((g) => groupToApi(g, columns)),
        response.total,
      );
    },
  });
}

export const logGroupsRoute = groupsRoute('/logs/groups/:groupBy', 'Logs', false);
export const analyticsGroupsRoute = groupsRoute('/analytics/groups/:groupBy', 'Analytics', true);
