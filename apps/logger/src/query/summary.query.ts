// GetSummary: headline totals over the filter; percentiles and distinct users read raw rows, feedback
// counts the feedback on the traces of the matching logs, given in those logs' workspaces.
import type { GetSummaryRequest, GetSummaryResponse } from '@aigw/proto';
import { type Kysely, sql } from 'kysely';
import type { LogsDatabase } from '../db/schema.js';
import { aggregateSource, rawWhere } from './aggregate-source.js';
import { requireCaller } from './caller-scope.js';
import { normaliseFilter } from './log-filter.js';

const EMPTY: GetSummaryResponse = {
  requestCount: 0,
  cost: { amountMicros: 0, currency: 'USD' },
  tokens: { inputTokens: 0, outputTokens: 0, totalTokens: 0, cachedInputTokens: 0, estimated: false },
  avgLatencyUs: 0,
  p95LatencyUs: 0,
  p99LatencyUs: 0,
  errorCount: 0,
  successRate: 0,
  cacheHitRate: 0,
  distinctUsers: 0,
  feedbackCount: 0,
};

export async function getSummary(
  db: Kysely<LogsDatabase>,
  request: GetSummaryRequest,
): Promise<GetSummaryResponse> {
  const caller = requireCaller(request.caller);
  const filter = normaliseFilter(request.filter);
  const source = aggregateSource({ caller, filter });
  const where = rawWhere(caller, filter);
  if (!source || !where) return EMPTY;
  const { rows } = await sql<{
    requests: string | null;
    errors: string | null;
    cache_hits: string | null;
    input_tokens: string | null;
    output_tokens: string | null;
    total_tokens: string | null;
    cost_micros: string | null;
    latency_ms_sum: number | null;
  }>`select sum(requests)::bigint as requests, sum(errors)::bigint as errors, sum(cache_hits)::bigint as cache_hits,
      sum(input_tokens)::bigint as input_tokens, sum(output_tokens)::bigint as output_tokens,
      sum(total_tokens)::bigint as total_tokens, sum(cost_micros)::bigint as cost_micros,
      sum(latency_ms_sum)::float8 as latency_ms_sum from ${source} s`.execute(db);
  const totals = rows[0];
  const requests = Number(totals?.requests ?? 0);
  if (requests === 0) return EMPTY;
  // Two raw passes, each cheap at 100,000+ rows (docs/console.md): percentiles read only
  // latency_ms, which the time indexes carry (an index-only scan, migration 0010), with one sort for
  // both; distinct users are hashed by group (count(distinct) would sort every row's value).
  const { rows: pct } = await sql<{ p: number[] | null }>`
    select percentile_cont(array[0.95, 0.99]::float8[]) within group (order by r.latency_ms) as p
    from request_logs r where ${where}`.execute(db);
  const { rows: raw } = await sql<{ users: string; cached: string }>`
    select count(u.end_user)::bigint as users, sum(u.cached)::bigint as cached
    from (select coalesce(r.user_id, r.metadata->>'_user') as end_user, sum(r.cached_input_tokens) as cached
      from request_logs r where ${where} group by 1) u`.execute(db);
  const [p95 = 0, p99 = 0] = pct[0]?.p ?? [];
  const { rows: fb } = await sql<{ n: string; weighted: number | null; weights: number | null }>`
    select count(*)::bigint as n, sum(f.value * f.weight)::float8 as weighted, sum(f.weight)::float8 as weights
    from feedback f where f.organisation_id = ${caller.organisationId}
      and (f.workspace_id, f.trace_id) in (select r.workspace_id, r.trace_id from request_logs r
        where ${where} and r.trace_id is not null)`.execute(db);
  const errors = Number(totals?.errors ?? 0);
  const feedback = fb[0];
  const summary: GetSummaryResponse = {
    requestCount: requests,
    cost: { amountMicros: Number(totals?.cost_micros ?? 0), currency: 'USD' },
    tokens: {
      inputTokens: Number(totals?.input_tokens ?? 0),
      outputTokens: Number(totals?.output_tokens ?? 0),
      totalTokens: Number(totals?.total_tokens ?? 0),
      cachedInputTokens: Number(raw[0]?.cached ?? 0),
      estimated: false,
    },
    avgLatencyUs: ((totals?.latency_ms_sum ?? 0) / requests) * 1000,
    p95LatencyUs: p95 * 1000,
    p99LatencyUs: p99 * 1000,
    errorCount: errors,
    successRate: 1 - errors / requests,
    cacheHitRate: Number(totals?.cache_hits ?? 0) / requests,
    distinctUsers: Number(raw[0]?.users ?? 0),
    feedbackCount: Number(feedback?.n ?? 0),
  };
  if (feedback?.weights) summary.avgFeedback = (feedback.weighted ?? 0) / feedback.weights;
  return summary;
}
