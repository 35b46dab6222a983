// The console with 100,000 request logs in the store (issue 22 "pages stay responsive", measured):
// part of `pnpm bench` (e2e's bench script runs src/*.measure.ts), never of `pnpm test`.
//
// Seeding: 100,000 request events published to JetStream exactly as the gateway publishes them
// (RequestEventBatch messages of 100 events on the request-events subject, Nats-Msg-Id per batch),
// so the real logger stores them through its own ingest (rows, hourly rollups, usage ledger): the
// store looks as it would after a day of traffic, nothing is written behind the logger's back. The
// events belong to the admin's organisation, two real workspaces and four real API keys, spread over
// the last 23 hours: the console's default views (logs newest first, analytics over 24 hours) cover
// all 100,000 rows, the worst case for a page's first load. Event i has trace id `<run>-<i>`, so a
// measurement can look up a known request.
//
// Measured, on that one store: (a) each admin API call the Logs and Analytics pages make (median of
// RUNS after a warm-up); (b) in real chromium, navigation to data shown for the Logs and Analytics
// pages; (c) in real chromium, the user's actions on the Logs page, from the action to the rows
// rendered: the first page, a trace-id search, the next page of 200, a filtered view (status,
// model, last hour) and a log's detail. It prints the numbers (docs/console.md quotes them) and
// asserts only that the answers are right (counts add up, each view shows what it should).
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { CacheStatus, RequestEvent, RequestEventBatch, SCHEMA_VERSION } from '@aigw/proto';
import type { NatsFixture, PgFixture } from '@aigw/testkit';
import type { Browser, Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { consoleTest, openConsole, screenshot, signIn } from './console.test-support.js';
import { callAs, createTenant, type LogsStack, pollUntil } from './logs-stack.test-support.js';

const test = consoleTest;

const LOGS = Number(process.env.BENCH_CONSOLE_LOGS ?? 100_000);
const PER_MESSAGE = 100;
const RUNS = Number(process.env.BENCH_CONSOLE_RUNS ?? 5);
const PAGE_RUNS = Number(process.env.BENCH_CONSOLE_PAGE_RUNS ?? 3);
const HOUR = 3_600_000;

const MODELS = ['gpt-4o-mini', 'gpt-4o', 'gpt-4.1', 'o3-mini', 'claude-3-5-sonnet'];
const STATUSES = [
  200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 429, 500, 400, 200,
];
const CACHE = [
  CacheStatus.MISS,
  CacheStatus.MISS,
  CacheStatus.HIT,
  CacheStatus.DISABLED,
  CacheStatus.SEMANTIC_HIT,
];
const CONFIG_ID = '7c0f5d7e-4a1b-4c55-9a55-6a0b6f9e0c01';

interface Shape {
  readonly organisationId: string;
  readonly workspaces: readonly { id: string; provider: string; keys: readonly string[] }[];
  readonly startMs: number;
  readonly stepMs: number;
  readonly runId: string;
}

/** A 32-bit integer hash (murmur3's finaliser): the dimensions of event i vary independently. */
function mix(i: number): number {
  let h = i + 0x9e3779b9;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Event i: dimensions cycle, latency and tokens vary (a cheap deterministic hash), bodies as a chat. */
function event(i: number, shape: Shape): RequestEvent {
  const ws = shape.workspaces[i % shape.workspaces.length] ?? shape.workspaces[0];
  if (!ws) throw new Error('no workspace');
  const h = mix(i);
  const model = MODELS[h % MODELS.length] ?? 'gpt-4o-mini';
  const status = STATUSES[(h >>> 8) % STATUSES.length] ?? 200;
  const spread = (h >>> 16) % 1000; // 0..999
  const input = 20 + (spread % 400);
  const output = status === 200 ? 5 + ((spread * 3) % 300) : 0;
  const latencyUs = 150_000 + spread * 2_500 + (spread > 990 ? 4_000_000 : 0);
  const received = Math.floor(shape.startMs + i * shape.stepMs);
  const request = JSON.stringify({
    model,
    messages: [{ role: 'user', content: `question ${i}` }],
    max_tokens: 300,
  });
  const response = JSON.stringify({
    id: `chatcmpl-${i}`,
    object: 'chat.completion',
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: `answer ${i}` }, finish_reason: 'stop' }],
    usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
  });
  return RequestEvent.fromPartial({
    schemaVersion: SCHEMA_VERSION,
    id: randomUUID(),
    traceId: `${shape.runId}-${i}`,
    spanId: `span-${i}`,
    receivedAtMs: received,
    completedAtMs: received + Math.round(latencyUs / 1000),
    organisationId: shape.organisationId,
    workspaceId: ws.id,
    apiKeyId: ws.keys[Math.floor(i / shape.workspaces.length) % ws.keys.length] ?? '',
    provider: {
      type: model.startsWith('claude') ? 'anthropic' : 'openai',
      slug: ws.provider,
      providerId: '',
      integrationId: '',
    },
    configId: i % 5 === 0 ? CONFIG_ID : '',
    configVersion: i % 5 === 0 ? 1 : 0,
    modelRequested: model,
    modelServed: model,
    method: 'POST',
    path: '/chat/completions',
    statusCode: status,
    isStream: i % 4 === 0,
    cacheStatus: CACHE[i % CACHE.length] ?? CacheStatus.DISABLED,
    tokens: { inputTokens: input, outputTokens: output, totalTokens: input + output, cachedInputTokens: 0 },
    cost: { amountMicros: input * 2 + output * 8, currency: 'USD' },
    metadata: { _user: `user-${i % 50}`, ...(i % 6 === 0 ? { _prompt: 'support-answer' } : {}) },
    latency: {
      totalUs: latencyUs,
      timeToFirstByteUs: Math.round(latencyUs / 3),
      upstreamUs: latencyUs - 2_000,
      gatewayOverheadUs: 2_000,
    },
    attempts: [{ model, statusCode: status }],
    requestBody: { data: Buffer.from(request), contentType: 'application/json', sizeBytes: request.length },
    responseBody: {
      data: Buffer.from(response),
      contentType: 'application/json',
      sizeBytes: response.length,
    },
    requestSizeBytes: request.length,
    responseSizeBytes: response.length,
  });
}

const round = (n: number) => Math.round(n * 10) / 10;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
};

interface Timing {
  readonly what: string;
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

/** RUNS timed calls after one warm-up; every answer must be 200; the last body is returned. */
// biome-ignore lint/suspicious/noExplicitAny: JSON answers are read field by field
async function timeCall(stack: LogsStack, timings: Timing[], what: string, path: string): Promise<any> {
  let body: unknown;
  const times: number[] = [];
  for (let run = 0; run <= RUNS; run++) {
    const start = performance.now();
    const reply = await callAs(stack, stack.admin.key, 'GET', path);
    const ms = performance.now() - start;
    expect(reply.status, `${what}: ${JSON.stringify(reply.body)}`).toBe(200);
    body = reply.body;
    if (run > 0) times.push(ms);
  }
  timings.push({
    what,
    median: round(median(times)),
    min: round(Math.min(...times)),
    max: round(Math.max(...times)),
  });
  return body;
}

interface PageTiming {
  /** Navigation start to data shown (measured from the test). */
  readonly shown: number;
  /** Navigation start to the first admin API call (the app loaded, the session checked: GET /me). */
  readonly firstCall: number;
  /** Navigation start to the end of the last admin API call's response. */
  readonly lastAnswer: number;
  readonly calls: number;
}

/** Navigation to data shown, PAGE_RUNS times after a warm-up, with the page's resource timings. */
async function timePage(
  page: Page,
  path: string,
  shown: (page: Page) => Promise<void>,
): Promise<PageTiming[]> {
  const times: PageTiming[] = [];
  for (let run = 0; run <= PAGE_RUNS; run++) {
    const start = performance.now();
    await page.goto(path);
    await shown(page);
    const elapsed = performance.now() - start;
    const api = await page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .filter((e) => /\/v1\/(?!me\b)/.test(e.name))
        .map((e) => [e.startTime, (e as unknown as { responseEnd: number }).responseEnd]),
    );
    if (run > 0)
      times.push({
        shown: elapsed,
        firstCall: Math.min(...api.map((a) => a[0] ?? 0)),
        lastAnswer: Math.max(...api.map((a) => a[1] ?? 0)),
        calls: api.length,
      });
  }
  return times;
}

function pageLine(what: string, runs: PageTiming[]): string {
  const m = (pick: (t: PageTiming) => number) => round(median(runs.map(pick)));
  return `| ${what} | ${m((t) => t.shown)} | ${m((t) => t.firstCall)} | ${m((t) => t.lastAnswer)} | ${runs[0]?.calls} | ${runs.map((t) => round(t.shown)).join(', ')} |`;
}

const CHARTS = ['requests', 'cost', 'tokens', 'latency', 'errors', 'error_rate', 'cache_hit_rate'];
const GRAPH_METRICS = [
  'requests',
  'cost',
  'tokens',
  'latency',
  'p50_latency',
  'p95_latency',
  'p99_latency',
  'errors',
  'error_rate',
  'cache_hit_rate',
];
const GROUP_BYS = [
  'ai_service',
  'model',
  'status_code',
  'api_key',
  'config',
  'workspace',
  'provider',
  'prompt',
];
/** The columns the Analytics page's grouped table asks for. */
const GROUP_COLUMNS =
  'cost,total_tokens,avg_latency,p95_latency,p99_latency,error_count,success_rate,cache_hit_rate,last_seen';
/** The events the trace-id searches look for (by their trace id `<run>-<i>`), and the detail opens. */
const SEARCHED = Math.floor(LOGS * 0.54321);
const DETAILED = Math.floor(LOGS * 0.77777);

const traceOf = (shape: Shape, i: number) => `${shape.runId}-${i}`;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const print = (lines: string[]) => process.stdout.write(`\n${lines.join('\n')}\n\n`);

/**
 * Two workspaces with two service keys each, LOGS events of theirs published as the gateway
 * publishes, stored by the logger, then vacuumed as autovacuum would; the seeding's numbers printed.
 */
async function seed(stack: LogsStack, pg: PgFixture, nats: NatsFixture, now: number): Promise<Shape> {
  const me = await stack.admin.expect(200, 'GET', '/me');
  const workspaces = [];
  for (const name of ['Bench A', 'Bench B']) {
    const tenant = await createTenant(stack.admin, stack.mock, name);
    const keys = [];
    for (const n of [1, 2]) {
      const key = await stack.admin.post('/api-keys/workspace/service', {
        name: `${name} key ${n}`,
        workspace_id: tenant.workspaceId,
        scopes: ['completions.write'],
      });
      keys.push(key.id as string);
    }
    workspaces.push({ id: tenant.workspaceId, provider: tenant.provider.replace(/^@/, ''), keys });
  }
  const shape: Shape = {
    organisationId: me.organisation_id,
    workspaces,
    startMs: now - 23 * HOUR,
    stepMs: (23 * HOUR - 60_000) / LOGS,
    runId: `bench-${randomUUID().slice(0, 8)}`,
  };

  const subject = `${nats.prefix}.aigw.requests.v1`;
  const seedStart = performance.now();
  let pending: Promise<unknown>[] = [];
  for (let first = 0; first < LOGS; first += PER_MESSAGE) {
    const events = Array.from({ length: Math.min(PER_MESSAGE, LOGS - first) }, (_, k) =>
      event(first + k, shape),
    );
    const bytes = RequestEventBatch.encode({ schemaVersion: SCHEMA_VERSION, events }).finish();
    pending.push(nats.js.publish(subject, bytes, { msgID: `${events[0]?.id}+${events.length}` }));
    if (pending.length >= 64) {
      await Promise.all(pending);
      pending = [];
    }
  }
  await Promise.all(pending);
  const published = performance.now();
  const stored = async () =>
    Number((await pg.pool.query<{ n: string }>('select count(*) as n from logs.request_logs')).rows[0]?.n);
  await pollUntil(stored, (n) => n >= LOGS, {
    boundMs: 600_000,
    intervalMs: 500,
    what: `${LOGS} logs stored`,
  });
  const seeded = performance.now();
  expect(await stored()).toBe(LOGS);
  // What autovacuum does to a table that grew by inserts (PostgreSQL 13+ vacuums on inserts too):
  // statistics and the visibility map (index-only scans skip all-visible heap pages) of a store
  // in steady state. It never analyzes the partitioned parent, so neither does this.
  const { rows: leaves } = await pg.pool.query<{ name: string }>(
    `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
     join pg_class p on p.oid = i.inhparent join pg_namespace n on n.oid = p.relnamespace
     where n.nspname = 'logs' and p.relname in ('request_logs')`,
  );
  for (const leaf of leaves) await pg.pool.query(`vacuum (analyze) logs."${leaf.name}"`);
  await pg.pool.query('vacuum (analyze) logs.request_rollups_hourly');
  print([
    `console with ${LOGS.toLocaleString('en')} logs: node ${process.version}, load average ${load()}`,
    `seeding: published in ${round((published - seedStart) / 1000)} s, stored by the logger after ${round((seeded - seedStart) / 1000)} s (${Math.round(LOGS / ((seeded - seedStart) / 1000))} events/s)`,
  ]);
  return shape;
}

/** (a) Every admin API call the Logs and Analytics pages make, timed and checked. */
async function measureApiCalls(stack: LogsStack, shape: Shape, now: number): Promise<void> {
  const timings: Timing[] = [];
  const first = await timeCall(stack, timings, 'logs: first page (50)', '/logs?page_size=50');
  expect(first.data).toHaveLength(50);
  const withTotal = await timeCall(
    stack,
    timings,
    'logs: first page with total',
    '/logs?page_size=50&include_total=true',
  );
  expect(withTotal.total).toBe(LOGS);
  const second = await timeCall(
    stack,
    timings,
    'logs: next page (cursor)',
    `/logs?page_size=50&cursor=${encodeURIComponent(first.next_cursor)}`,
  );
  expect(second.data).toHaveLength(50);
  const filtered = await timeCall(
    stack,
    timings,
    'logs: filtered (model, status 500)',
    '/logs?page_size=50&model=gpt-4o&status_code=500',
  );
  expect(filtered.data.length).toBeGreaterThan(0);
  expect(
    filtered.data.every(
      (l: { model: string; status_code: number }) => l.model === 'gpt-4o' && l.status_code === 500,
    ),
  ).toBe(true);
  const rare = await timeCall(
    stack,
    timings,
    'logs: filtered (one key, min cost)',
    `/logs?page_size=50&api_key_id=${shape.workspaces[1]?.keys[0]}&min_cost=0.003`,
  );
  expect(rare.data.length).toBeGreaterThan(0);
  const traced = await timeCall(
    stack,
    timings,
    'logs: trace-id search',
    `/logs?page_size=50&trace_id=${traceOf(shape, SEARCHED)}`,
  );
  expect(traced.data.map((l: { trace_id: string }) => l.trace_id)).toEqual([traceOf(shape, SEARCHED)]);
  const detail = await timeCall(stack, timings, 'logs: detail (bodies)', `/logs/${traced.data[0].id}`);
  expect(detail.response.json.id).toBe(`chatcmpl-${SEARCHED}`);

  const range = (hours: number) =>
    `start_time=${new Date(now - hours * HOUR).toISOString()}&end_time=${new Date(now + 60_000).toISOString()}`;
  for (const [label, hours] of [
    ['24h', 24],
    ['30d', 720],
  ] as const) {
    const summary = await timeCall(
      stack,
      timings,
      `analytics ${label}: summary`,
      `/analytics/summary?${range(hours)}`,
    );
    expect(summary.requests).toBe(LOGS);
    for (const metric of GRAPH_METRICS) {
      const graph = await timeCall(
        stack,
        timings,
        `analytics ${label}: graph ${metric}`,
        `/analytics/graphs/${metric}?${range(hours)}`,
      );
      expect(graph.data_points.length).toBeGreaterThan(0);
      if (metric === 'requests') expect(graph.total).toBe(LOGS);
    }
  }
  for (const groupBy of GROUP_BYS) {
    const groups = await timeCall(
      stack,
      timings,
      `analytics 24h: group by ${groupBy}`,
      `/analytics/groups/${groupBy}?${range(24)}&columns=${GROUP_COLUMNS}&page_size=20&current_page=0`,
    );
    expect(groups.data.length).toBeGreaterThan(0);
    if (groups.total <= 20)
      expect(groups.data.reduce((n: number, g: { request_count: number }) => n + g.request_count, 0)).toBe(
        LOGS,
      );
  }
  print([
    `(a) API calls, median of ${RUNS} after a warm-up; load average ${load()}`,
    '| API call | median ms | min | max |',
    '| --- | ---: | ---: | ---: |',
    ...timings.map((t) => `| ${t.what} | ${t.median} | ${t.min} | ${t.max} |`),
  ]);
}

/** (b) Navigation to data shown for the Analytics and Logs pages (the app's own code, cached). */
async function measurePageLoads(page: Page): Promise<void> {
  const analyticsShown = async (page: Page) => {
    await page.getByTestId('summary-requests-value').waitFor();
    for (const id of CHARTS) await page.getByTestId(`chart-${id}`).locator('canvas').first().waitFor();
    await page.getByTestId('group-row').first().waitFor();
  };
  const analytics24h = await timePage(page, '/console/analytics', analyticsShown);
  expect(await page.getByTestId('summary-requests-value').textContent()).toBe(LOGS.toLocaleString('en'));
  await screenshot(page, 'analytics-100k');
  const analytics30d = await timePage(page, '/console/analytics?range=30d&group=model', analyticsShown);
  expect(await page.getByTestId('group-row').count()).toBe(MODELS.length);
  const logs = await timePage(page, '/console/logs', (page) => page.getByTestId('log-row').first().waitFor());
  expect(await page.getByTestId('log-row').count()).toBe(50);
  await screenshot(page, 'logs-100k');
  print([
    `(b) page loads in chromium, median of ${PAGE_RUNS} after a warm-up; load average ${load()}`,
    '| page (chromium) | data shown, median ms | first API call | last API answer | API calls | runs (shown) |',
    '| --- | ---: | ---: | ---: | ---: | --- |',
    pageLine('Analytics, 24h (summary, 7 charts, groups by AI service)', analytics24h),
    pageLine('Analytics, 30d grouped by model', analytics30d),
    pageLine('Logs, first page (first row)', logs),
  ]);
}

/** Milliseconds from `act` to the logs table showing `rows` rows for which `done` holds. */
async function untilRows(
  page: Page,
  act: () => Promise<unknown>,
  rows: number,
  done: () => Promise<boolean> = async () => true,
): Promise<number> {
  const start = performance.now();
  await act();
  await expect
    .poll(async () => (await page.getByTestId('log-row').count()) === rows && (await done()), { interval: 5 })
    .toBe(true);
  return performance.now() - start;
}

/** The median of RUNS runs of `run` after a warm-up run, rounded to the millisecond. */
async function medianRun(run: () => Promise<number>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i <= RUNS; i++) {
    const ms = await run();
    if (i > 0) times.push(ms);
  }
  return Math.round(median(times));
}

/** The (status, model) pairs the logs table shows, one per row. */
const statusAndModel = (page: Page) =>
  page
    .getByTestId('log-row')
    .evaluateAll((rows) => rows.map((r) => `${r.children[1]?.textContent} ${r.children[3]?.textContent}`));

/** (c) The user's actions on the Logs page, from the action to the rows rendered. */
async function measureLogsActions(page: Page, shape: Shape): Promise<void> {
  const settled = () => page.locator('[data-testid="logs-table"][aria-busy="false"]').waitFor();
  const firstPage = await medianRun(() => untilRows(page, () => page.goto('/console/logs'), 50));

  const searched = traceOf(shape, SEARCHED);
  const traceCell = () => page.getByTestId('log-row').locator('code.trace-id').textContent();
  const search = await medianRun(async () => {
    await page.goto('/console/logs');
    await settled();
    await page.getByRole('searchbox', { name: 'Trace ID' }).fill(searched);
    return untilRows(
      page,
      () => page.getByRole('button', { name: 'Search' }).click(),
      1,
      async () => (await traceCell()) === searched,
    );
  });
  expect(await traceCell()).toBe(searched);

  const nextPage = await medianRun(async () => {
    await page.goto('/console/logs?page_size=200');
    await settled();
    await expect.poll(() => page.getByTestId('log-row').count()).toBe(200);
    const first = await page.getByTestId('log-row').first().textContent();
    return untilRows(
      page,
      () => page.getByRole('button', { name: 'Next →' }).click(),
      200,
      async () => (await page.getByTestId('log-row').first().textContent()) !== first,
    );
  });

  const filtered = await medianRun(() =>
    untilRows(
      page,
      () => page.goto('/console/logs?status_code=200&model=gpt-4o-mini&range=1h&page_size=100'),
      100,
    ),
  );
  expect(new Set(await statusAndModel(page))).toEqual(new Set(['200 gpt-4o-mini']));

  const detailed = traceOf(shape, DETAILED);
  const detail = await medianRun(async () => {
    await page.goto(`/console/logs?trace_id=${detailed}`);
    await expect.poll(() => page.getByTestId('log-row').count()).toBe(1);
    const start = performance.now();
    await page.getByTestId('log-row').click();
    await page.getByTestId('request-body').waitFor();
    return performance.now() - start;
  });
  expect(await page.getByTestId('request-body').textContent()).toContain(`question ${DETAILED}`);

  print([
    `(c) user actions on the Logs page in chromium (action to rows rendered), median of ${RUNS} after a warm-up; load average ${load()}`,
    '| action | median ms |',
    '| --- | ---: |',
    `| first page (50 rows) | ${firstPage} |`,
    `| trace-id search | ${search} |`,
    `| next page of 200 | ${nextPage} |`,
    `| filtered (status 200, gpt-4o-mini, last hour, 100 rows) | ${filtered} |`,
    `| a log's detail (request body shown) | ${detail} |`,
  ]);
}

async function measureInChromium(browser: Browser, stack: LogsStack, shape: Shape): Promise<void> {
  const console = await openConsole(browser, stack.controlPlaneBase);
  try {
    await signIn(console.page, stack.admin.key);
    await measurePageLoads(console.page);
    await measureLogsActions(console.page, shape);
  } finally {
    await console.close();
  }
}

describe('the console with 100,000 logs (measurement)', () => {
  test('API calls, page loads and Logs page actions, printed', async ({ stack, browser, pg, nats }) => {
    const now = Date.now();
    const shape = await seed(stack, pg, nats, now);
    await measureApiCalls(stack, shape, now);
    await measureInChromium(browser, stack, shape);
  }, 1_800_000);
});
