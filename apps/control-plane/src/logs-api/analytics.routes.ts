// GET /analytics/graphs/:metric and /analytics/summary: time series and headline totals, hidden
// from roles whose *ViewAnalytics setting is false.
import { GraphBucket, GraphMetric } from '@aigw/proto';
import { z } from 'zod';
import { defineRoute } from '../http/route.js';
import { requireAnalytics, visibilityOf } from './caller-context.js';
import { logFilterFields, toLogFilter } from './log-filter.schema.js';
import { iso, loggerOf } from './logs-api.context.js';

/** Metric name -> proto metric and whether its unit is microseconds (shown in milliseconds). */
const METRICS = {
  requests: [GraphMetric.REQUESTS, 'count'],
  cost: [GraphMetric.COST, 'usd'],
  tokens: [GraphMetric.TOKENS, 'count'],
  latency: [GraphMetric.AVG_LATENCY, 'ms'],
  p50_latency: [GraphMetric.P50_LATENCY, 'ms'],
  p95_latency: [GraphMetric.P95_LATENCY, 'ms'],
  p99_latency: [GraphMetric.P99_LATENCY, 'ms'],
  errors: [GraphMetric.ERRORS, 'count'],
  error_rate: [GraphMetric.ERROR_RATE, 'ratio'],
  cache_hit_rate: [GraphMetric.CACHE_HIT_RATE, 'ratio'],
  users: [GraphMetric.DISTINCT_USERS, 'count'],
} as const;

const BUCKETS = {
  minute: GraphBucket.MINUTE,
  hour: GraphBucket.HOUR,
  day: GraphBucket.DAY,
  week: GraphBucket.WEEK,
  month: GraphBucket.MONTH,
} as const;
const BUCKET_NAMES = Object.fromEntries(Object.entries(BUCKETS).map(([k, v]) => [v, k]));

type MetricName = keyof typeof METRICS;
type Unit = (typeof METRICS)[MetricName][1];
const inUnit = (value: number, unit: Unit) =>
  unit === 'ms' ? value / 1000 : unit === 'usd' ? value / 1e6 : value;

export const graphRoute = defineRoute({
  method: 'get',
  path: '/analytics/graphs/:metric',
  tag: 'Analytics',
  summary: 'Get an analytics graph',
  scope: 'analytics.view',
  level: 'workspace',
  params: z.object({ metric: z.enum(Object.keys(METRICS) as [MetricName, ...MetricName[]]) }).strict(),
  query: z
    .object({ ...logFilterFields, bucket: z.enum(Object.keys(BUCKETS) as [keyof typeof BUCKETS]).optional() })
    .strict(),
  response: z.object({
    object: z.literal('analytics-graph'),
    metric: z.string(),
    unit: z.string(),
    bucket: z.string(),
    data_points: z.array(z.object({ timestamp: z.string(), value: z.number() })),
    total: z.number(),
  }),
  async handler(ctx) {
    const visibility = await visibilityOf(ctx.db, ctx.principal);
    requireAnalytics(visibility);
    const [metric, unit] = METRICS[ctx.params.metric];
    const response = await loggerOf(ctx).call('getGraph', {
      caller: visibility.caller,
      filter: await toLogFilter(ctx.db, ctx.principal, ctx.query),
      metric,
      bucket: ctx.query.bucket ? BUCKETS[ctx.query.bucket] : GraphBucket.UNSPECIFIED,
    });
    return {
      object: 'analytics-graph',
      metric: ctx.params.metric,
      unit,
      bucket: BUCKET_NAMES[response.bucket] ?? 'hour',
      data_points: response.points.map((p) => ({
        timestamp: iso(p.bucketStartAtMs),
        value: inUnit(p.value, unit),
      })),
      total: inUnit(response.total, unit),
    };
  },
});

export const summaryRoute = defineRoute({
  method: 'get',
  path: '/analytics/summary',
  tag: 'Analytics',
  summary: 'Get the analytics summary',
  scope: 'analytics.view',
  level: 'workspace',
  query: z.object(logFilterFields).strict(),
  response: z
    .object({ object: z.literal('analytics-summary'), requests: z.number().int(), cost: z.number() })
    .loose(),
  async handler(ctx) {
    const visibility = await visibilityOf(ctx.db, ctx.principal);
    requireAnalytics(visibility);
    const s = await loggerOf(ctx).call('getSummary', {
      caller: visibility.caller,
      filter: await toLogFilter(ctx.db, ctx.principal, ctx.query),
    });
    return {
      object: 'analytics-summary',
      requests: s.requestCount,
      cost: (s.cost?.amountMicros ?? 0) / 1e6,
      tokens: {
        input: s.tokens?.inputTokens ?? 0,
        output: s.tokens?.outputTokens ?? 0,
        total: s.tokens?.totalTokens ?? 0,
        cached_input: s.tokens?.cachedInputTokens ?? 0,
      },
      avg_latency: s.avgLatencyUs / 1000,
      p95_latency: s.p95LatencyUs / 1000,
      p99_latency: s.p99LatencyUs / 1000,
      error_count: s.errorCount,
      success_rate: s.successRate,
      cache_hit_rate: s.cacheHitRate,
      users: s.distinctUsers,
      feedback: { count: s.feedbackCount, avg_value: s.avgFeedback ?? null },
    };
  },
});
