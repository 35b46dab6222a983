// GetGraph: one metric per time bucket over a range, every bucket present (empty ones are 0).
import { type GetGraphRequest, type GetGraphResponse, GraphBucket, GraphMetric } from '@aigw/proto';
import { type Kysely, sql } from 'kysely';
import type { LogsDatabase } from '../db/schema.js';
import { aggregateSource, type BucketUnit, rawWhere } from './aggregate-source.js';
import { normaliseFilter } from './log-filter.js';
import { invalidArgument } from './query-error.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Points a graph may have; a finer bucket over a longer range is a 400, not a slow query. */
export const MAX_POINTS = 5000;
/** Range of a graph without from_ms. */
export const DEFAULT_RANGE_MS = DAY;

const UNITS: Readonly<Record<number, BucketUnit>> = {
  [GraphBucket.MINUTE]: 'minute',
  [GraphBucket.HOUR]: 'hour',
  [GraphBucket.DAY]: 'day',
  [GraphBucket.WEEK]: 'week',
  [GraphBucket.MONTH]: 'month',
};

/** About 50 to 200 points for the range. */
export function pickBucket(rangeMs: number): GraphBucket {
  if (rangeMs <= 3 * HOUR) return GraphBucket.MINUTE;
  if (rangeMs <= 8 * DAY) return GraphBucket.HOUR;
  if (rangeMs <= 200 * DAY) return GraphBucket.DAY;
  if (rangeMs <= 1400 * DAY) return GraphBucket.WEEK;
  return GraphBucket.MONTH;
}

/** UTC start of the bucket holding `ms`. */
export function bucketStart(ms: number, unit: BucketUnit): number {
  const d = new Date(ms);
  switch (unit) {
    case 'minute':
      return Math.floor(ms / MINUTE) * MINUTE;
    case 'hour':
      return Math.floor(ms / HOUR) * HOUR;
    case 'day':
      return Math.floor(ms / DAY) * DAY;
    case 'week': {
      const day = Math.floor(ms / DAY) * DAY;
      return day - ((d.getUTCDay() + 6) % 7) * DAY;
    }
    case 'month':
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  }
}

function nextBucket(ms: number, unit: BucketUnit): number {
  if (unit === 'month') {
    const d = new Date(ms);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  }
  return ms + { minute: MINUTE, hour: HOUR, day: DAY, week: 7 * DAY }[unit];
}

/** Latency metrics read from raw rows, and their fraction. */
const PERCENTILES: Readonly<Partial<Record<GraphMetric, number>>> = {
  [GraphMetric.P50_LATENCY]: 0.5,
  [GraphMetric.P95_LATENCY]: 0.95,
  [GraphMetric.P99_LATENCY]: 0.99,
};

interface BucketRow {
  bucket: Date;
  requests: string;
  errors: string;
  cache_hits: string;
  total_tokens: string;
  cost_micros: string;
  latency_ms_sum: number;
}

export async function getGraph(
  db: Kysely<LogsDatabase>,
  request: GetGraphRequest,
  now = Date.now(),
): Promise<GetGraphResponse> {
  if (!(request.metric in GraphMetric) || request.metric <= 0)
    throw invalidArgument('metric must be one of the GraphMetric values');
  const filter = normaliseFilter(request.filter);
  const toMs = filter.toMs || now;
  const fromMs = filter.fromMs || toMs - DEFAULT_RANGE_MS;
  if (fromMs >= toMs) throw invalidArgument('filter.from_ms must be before filter.to_ms');
  const bucket = request.bucket === GraphBucket.UNSPECIFIED ? pickBucket(toMs - fromMs) : request.bucket;
  const unit = UNITS[bucket];
  if (!unit) throw invalidArgument('bucket must be one of the GraphBucket values');
  const starts: number[] = [];
  for (let t = bucketStart(fromMs, unit); t < toMs; t = nextBucket(t, unit)) {
    starts.push(t);
    if (starts.length > MAX_POINTS)
      throw invalidArgument(`the range has more than ${MAX_POINTS} ${unit} buckets; pick a wider bucket`);
  }
  const ranged = { ...filter, fromMs, toMs };
  const values = await metricByBucket(db, request, ranged, unit);
  const points = starts.map((t) => ({ bucketStartAtMs: t, value: values.perBucket.get(t) ?? 0 }));
  return { metric: request.metric, bucket, points, total: values.total };
}

async function metricByBucket(
  db: Kysely<LogsDatabase>,
  request: GetGraphRequest,
  filter: ReturnType<typeof normaliseFilter>,
  unit: BucketUnit,
): Promise<{ perBucket: Map<number, number>; total: number }> {
  const metric = request.metric;
  const percentile = PERCENTILES[metric];
  if (percentile !== undefined || metric === GraphMetric.DISTINCT_USERS) {
    const where = rawWhere(request.caller, filter);
    if (!where) return { perBucket: new Map(), total: 0 };
    const value =
      metric === GraphMetric.DISTINCT_USERS
        ? sql`count(distinct coalesce(r.user_id, r.metadata->>'_user'))::float8`
        : sql`(percentile_cont(${percentile}::float8) within group (order by r.latency_ms) * 1000)::float8`;
    const { rows } = await sql<{ bucket: Date | null; value: number | null }>`
      select date_trunc(${unit}, r.received_at, 'UTC') as bucket, ${value} as value
      from request_logs r where ${where} group by rollup (1)`.execute(db);
    const perBucket = new Map<number, number>();
    let total = 0;
    for (const row of rows) {
      if (row.bucket === null) total = row.value ?? 0;
      else perBucket.set(row.bucket.getTime(), row.value ?? 0);
    }
    return { perBucket, total };
  }
  const source = aggregateSource({ caller: request.caller, filter, bucket: unit });
  if (!source) return { perBucket: new Map(), total: 0 };
  const { rows } = await sql<BucketRow>`
    select bucket, sum(requests)::bigint as requests, sum(errors)::bigint as errors,
      sum(cache_hits)::bigint as cache_hits, sum(total_tokens)::bigint as total_tokens,
      sum(cost_micros)::bigint as cost_micros, sum(latency_ms_sum)::float8 as latency_ms_sum
    from ${source} s group by bucket`.execute(db);
  const perBucket = new Map<number, number>();
  const sum: BucketRow = {
    bucket: new Date(0),
    requests: '0',
    errors: '0',
    cache_hits: '0',
    total_tokens: '0',
    cost_micros: '0',
    latency_ms_sum: 0,
  };
  const add = (a: string, b: string) => String(BigInt(a) + BigInt(b));
  for (const row of rows) {
    perBucket.set(row.bucket.getTime(), metricValue(metric, row));
    sum.requests = add(sum.requests, row.requests);
    sum.errors = add(sum.errors, row.errors);
    sum.cache_hits = add(sum.cache_hits, row.cache_hits);
    sum.total_tokens = add(sum.total_tokens, row.total_tokens);
    sum.cost_micros = add(sum.cost_micros, row.cost_micros);
    sum.latency_ms_sum += row.latency_ms_sum;
  }
  return { perBucket, total: metricValue(metric, sum) };
}

function metricValue(metric: GraphMetric, row: BucketRow): number {
  const requests = Number(row.requests);
  const rate = (n: string) => (requests === 0 ? 0 : Number(n) / requests);
  switch (metric) {
    case GraphMetric.REQUESTS:
      return requests;
    case GraphMetric.COST:
      return Number(row.cost_micros);
    case GraphMetric.TOKENS:
      return Number(row.total_tokens);
    case GraphMetric.AVG_LATENCY:
      return requests === 0 ? 0 : (row.latency_ms_sum / requests) * 1000;
    case GraphMetric.ERRORS:
      return Number(row.errors);
    case GraphMetric.ERROR_RATE:
      return rate(row.errors);
    case GraphMetric.CACHE_HIT_RATE:
      return rate(row.cache_hits);
    default:
      return 0;
  }
}
