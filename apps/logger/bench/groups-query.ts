// Query benchmark: BENCH_ROWS request logs (default 1 million, inserted with generate_series over 7
// days in daily partitions, rollups built from them as the ingest would) and the latency of the
// analytics queries admins run, p50/p95 over BENCH_RUNS runs each, called as LogsService runs them.
// Postgres: DATABASE_URL, else a local binary (testkit; without fsync).
import { openDatabase } from '@aigw/db';
import { type CallerContext, GraphBucket, GraphMetric, LogGroupBy, LogGroupColumn } from '@aigw/proto';
import { createLogger } from '@aigw/runtime';
import { resolveServices } from '@aigw/testkit/services';
import { sql } from 'kysely';
import pg from 'pg';
import { migrations } from '../src/db/migrations/index.js';
import { type LogsDatabase, SCHEMA } from '../src/db/schema.js';
import { createPartition, dayStart } from '../src/maintenance/partitions.js';
import { getGraph } from '../src/query/graph.query.js';
import { getGroups } from '../src/query/groups.query.js';
import { EMPTY_FILTER } from '../src/query/log-filter.js';
import { getSummary } from '../src/query/summary.query.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const DAY = 86_400_000;
const ORG = '0a000000-0000-4000-8000-000000000001';

const log = createLogger({ app: 'logger-bench', level: 'info' });
const services = await resolveServices(['postgres'], { log: (line) => log.info(line) });
const serverUrl = services.postgres?.url ?? '';
const name = `bench_groups_${process.pid}`;
const admin = new pg.Pool({ connectionString: serverUrl, max: 1 });
admin.on('error', () => undefined);
await admin.query(`create database ${name}`);
const url = new URL(serverUrl);
url.pathname = `/${name}`;
const database = await openDatabase<LogsDatabase>({
  url: url.toString(),
  schema: SCHEMA,
  applicationName: 'logger-bench',
  migrations,
  statementTimeoutMs: 600_000,
});
const db = database.db;

const end = dayStart(Date.now()) + DAY;
const start = end - 7 * DAY;

try {
  for (let day = start; day < end; day += DAY) await createPartition(db, day);
  const loadStart = performance.now();
  // 8 workspaces, 64 keys, 3 provider types, 6 providers, 10 models, 6 statuses, 4 configs, 5 prompts.
  await sql`
    insert into request_logs (id, received_at, trace_id, organisation_id, workspace_id, api_key_id, user_id,
      ai_service, provider_slug, config_id, prompt_id, model, model_requested, model_served, method, path,
      status_code, is_stream, cache_status, input_tokens, output_tokens, cached_input_tokens, total_tokens,
      tokens_estimated, cost_micros, currency, latency_ms, ttfb_ms, upstream_ms, gateway_overhead_ms, metadata,
      attempts, request_size_bytes, response_size_bytes, request_body_truncated, response_body_truncated,
      log_format, event)
    select gen_random_uuid(), to_timestamp((${start}::float8 + (i::float8 / ${ROWS}) * ${end - start}) / 1000),
      'trace-' || (i % 100000), ${ORG}, 'ws-' || (i % 8), 'key-' || (i % 64), 'user-' || (i % 500),
      (array['openai','anthropic','bedrock'])[1 + i % 3], 'provider-' || (i % 6),
      case when i % 4 = 0 then null else 'cfg-' || (i % 4) end,
      case when i % 5 = 0 then 'prompt-' || (i % 7) else null end,
      'model-' || (i % 10), 'model-' || (i % 10), 'model-' || (i % 10), 'POST', '/chat/completions',
      (array[200,200,200,200,201,400,429,500])[1 + i % 8], false, (array[1,3,6,6])[1 + i % 4],
      100 + i % 900, 50 + i % 300, i % 50, 150 + i % 900 + i % 300, false, i % 20000, 'USD',
      50 + (i::bigint * 7919 % 3000), 20, 40, 2, jsonb_build_object('env', case when i % 2 = 0 then 'prod' else 'dev' end),
      1, 1000, 2000, false, false, 'json', '\\x'::bytea
    from generate_series(1, ${ROWS}) as i`.execute(db);
  await sql`
    insert into request_rollups_hourly
    select date_trunc('hour', received_at, 'UTC'), organisation_id, workspace_id, api_key_id, ai_service,
      provider_slug, model, status_code, config_id, prompt_id, count(*), count(*) filter (where status_code >= 400),
      count(*) filter (where cache_status in (1, 2)), sum(input_tokens), sum(output_tokens), sum(cached_input_tokens),
      sum(total_tokens), sum(cost_micros), sum(latency_ms), max(latency_ms), min(received_at), max(received_at)
    from request_logs group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10`.execute(db);
  await sql`analyze`.execute(db);
  const rollups = await sql<{ n: string }>`select count(*) as n from request_rollups_hourly`.execute(db);
  log.info(
    {
      rows: ROWS,
      rollupRows: Number(rollups.rows[0]?.n),
      seconds: ((performance.now() - loadStart) / 1000).toFixed(1),
    },
    'data loaded',
  );

  const caller: CallerContext = {
    organisationId: ORG,
    allWorkspaces: true,
    workspaceIds: [],
    restrictToApiKeys: false,
    restrictToApiKeyIds: [],
  };
  const member: CallerContext = {
    ...caller,
    allWorkspaces: false,
    workspaceIds: ['ws-3'],
    restrictToApiKeys: true,
    restrictToApiKeyIds: ['key-3', 'key-11'],
  };
  const week = { ...EMPTY_FILTER, fromMs: start + 1_234_567, toMs: end - 7_654_321 };
  const day = { ...EMPTY_FILTER, fromMs: end - DAY - 1_234_567, toMs: end - 7_654_321 };
  const additive = [
    LogGroupColumn.COST,
    LogGroupColumn.TOTAL_TOKENS,
    LogGroupColumn.AVG_TOKENS,
    LogGroupColumn.AVG_LATENCY,
    LogGroupColumn.SUCCESS_RATE,
    LogGroupColumn.ERROR_COUNT,
    LogGroupColumn.CACHE_HIT_RATE,
    LogGroupColumn.LAST_SEEN,
    LogGroupColumn.FIRST_SEEN,
  ];
  const group =
    (groupBy: LogGroupBy, columns: LogGroupColumn[], filter = week, who = caller) =>
    () =>
      getGroups(db, { caller: who, filter, groupBy, columns, pageSize: 50, currentPage: 0 });
  const queries: [string, () => Promise<unknown>][] = [
    ['groups model, count only, 7 days', group(LogGroupBy.MODEL, [])],
    ['groups model, 9 additive columns, 7 days', group(LogGroupBy.MODEL, additive)],
    ['groups api_key, 9 additive columns, 7 days', group(LogGroupBy.API_KEY, additive)],
    [
      'groups model, all 13 columns (p95/p99 raw), 7 days',
      group(LogGroupBy.MODEL, [...additive, LogGroupColumn.P95_LATENCY, LogGroupColumn.P99_LATENCY]),
    ],
    [
      'groups model, all 13 columns, last 24 h',
      group(LogGroupBy.MODEL, [...additive, LogGroupColumn.P95_LATENCY, LogGroupColumn.P99_LATENCY], day),
    ],
    [
      'groups model, metadata filter (raw), 7 days',
      group(LogGroupBy.MODEL, additive, { ...week, metadata: [{ key: 'env', value: 'prod' }] }),
    ],
    ['groups model, member restricted to 2 keys, 7 days', group(LogGroupBy.MODEL, additive, week, member)],
    [
      'graph requests per hour, 7 days',
      () => getGraph(db, { caller, filter: week, metric: GraphMetric.REQUESTS, bucket: GraphBucket.HOUR }),
    ],
    [
      'graph p95 latency per day, 7 days',
      () => getGraph(db, { caller, filter: week, metric: GraphMetric.P95_LATENCY, bucket: GraphBucket.DAY }),
    ],
    ['summary, 7 days', () => getSummary(db, { caller, filter: week })],
  ];
  const results: Record<string, { p50Ms: string; p95Ms: string }> = {};
  for (const [label, run] of queries) {
    await run(); // warm the cache and plans
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      await run();
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    const at = (p: number) => times[Math.min(times.length - 1, Math.ceil(p * times.length) - 1)]!.toFixed(1);
    results[label] = { p50Ms: at(0.5), p95Ms: at(0.95) };
    log.info({ query: label, ...results[label] }, 'measured');
  }
  console.log(JSON.stringify({ rows: ROWS, runs: RUNS, results }, null, 2));
} catch (err) {
  log.error({ err }, 'benchmark failed');
  process.exitCode = 1;
} finally {
  await database.close();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
  await services.stopAll();
}
