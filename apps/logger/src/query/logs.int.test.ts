// ListLogs, GetLog, GetGraph and GetSummary against real Postgres, and the CallerContext failing
// closed on every read.
import {
  CacheStatus,
  type CallerContext,
  GetGraphRequest,
  type GetGraphResponse,
  GetGroupsRequest,
  type GetGroupsResponse,
  GetLogRequest,
  type GetLogResponse,
  GetSummaryRequest,
  type GetSummaryResponse,
  GraphBucket,
  GraphMetric,
  ListAuditEventsRequest,
  type ListLogsRequest,
  type ListLogsResponse,
  type LogFilter,
  LogGroupBy,
} from '@aigw/proto';
import { test as base } from '@aigw/testkit';
import { status } from '@grpc/grpc-js';
import { describe, expect } from 'vitest';
import {
  call,
  callerOf,
  close,
  filterOf,
  HOUR,
  KEYS,
  makeEvents,
  matches,
  ORG_B,
  openLogsDatabase,
  percentileCont,
  startService,
  storeEvents,
  T0,
  type TestService,
  totalsOf,
  visible,
  WS,
} from './query.test-support.js';

const EVENTS = makeEvents(1200, 11);

const test = base.extend<{ svc: TestService }>({
  svc: [
    async ({ pg }, use) => {
      const database = await openLogsDatabase(pg);
      await storeEvents(database.db, EVENTS);
      const svc = await startService(database.db);
      try {
        await use(svc);
      } finally {
        await svc.close();
        await database.close();
      }
    },
    { scope: 'file' },
  ],
});

const list = (svc: TestService, request: Partial<ListLogsRequest>) =>
  call<ListLogsRequest, ListLogsResponse>(svc.client.listLogs, svc.client, {
    caller: callerOf(),
    filter: filterOf(),
    pageSize: 500,
    cursor: '',
    includeTotal: true,
    includeBodies: false,
    ...request,
  });

/** Every page of a listing, following next_cursor. */
async function listAll(svc: TestService, request: Partial<ListLogsRequest>): Promise<string[]> {
  const ids: string[] = [];
  let cursor = '';
  for (let i = 0; i < 1000; i++) {
    const page = await list(svc, { ...request, cursor });
    ids.push(...page.logs.map((l) => l.request!.id));
    if (page.nextCursor === '') return ids;
    cursor = page.nextCursor;
  }
  throw new Error('no last page');
}

function reference(caller: CallerContext, filter: LogFilter): string[] {
  return EVENTS.filter((e) => visible(e, caller) && matches(e, filter))
    .sort((a, b) => b.receivedAtMs - a.receivedAtMs || (a.id < b.id ? 1 : -1))
    .map((e) => e.id);
}

const FILTERS: [string, Partial<LogFilter>][] = [
  ['time range', { fromMs: T0 + 3 * HOUR + 5, toMs: T0 + 20 * HOUR + 17 }],
  ['workspace', { workspaceIds: [WS[1]] }],
  ['API key', { apiKeyIds: [KEYS[2], KEYS[3]] }],
  ['provider slug', { providerSlugs: ['openai-backup'] }],
  ['provider type', { aiServices: ['anthropic'] }],
  ['model (served, else requested)', { models: ['gpt-4o'] }],
  ['status', { statusCodes: [429, 500] }],
  ['trace id', { traceId: 'trace-5' }],
  [
    'metadata key/value',
    {
      metadata: [
        { key: 'env', value: 'dev' },
        { key: '_user', value: 'u2' },
      ],
    },
  ],
  ['cost range', { costMicros: { min: 1000, max: 9000 } }],
  ['token range', { totalTokens: { min: 500, max: 900 } }],
  ['config', { configIds: ['cfg-2'] }],
  ['prompt', { promptIds: ['prompt-1'] }],
  ['cache status', { cacheStatuses: [CacheStatus.HIT, CacheStatus.SEMANTIC_HIT] }],
  ['user', { userIds: ['u1'] }],
  [
    'several at once',
    { aiServices: ['openai'], statusCodes: [200], metadata: [{ key: 'env', value: 'prod' }] },
  ],
];

describe('ListLogs', () => {
  for (const [name, partial] of FILTERS) {
    test(`filters by ${name}`, async ({ svc }) => {
      const filter = filterOf(partial);
      const want = reference(callerOf(), filter);
      expect(want.length).toBeGreaterThan(0);
      expect(want.length).toBeLessThan(EVENTS.length);
      const response = await list(svc, { filter });
      expect(response.logs.map((l) => l.request!.id)).toEqual(want.slice(0, 500));
      expect(response.total).toBe(want.length);
    });
  }

  test('cursor paging walks every visible log once, newest first', async ({ svc }) => {
    const want = reference(callerOf(), filterOf());
    expect(await listAll(svc, { pageSize: 37 })).toEqual(want);
    const first = await list(svc, { pageSize: 10 });
    expect(first.logs).toHaveLength(10);
    expect(first.logs[0]?.request?.requestBody).toBeUndefined();
  });

  test('a cursor it did not issue is INVALID_ARGUMENT; an inverted range too', async ({ svc }) => {
    await expect(list(svc, { cursor: 'bm9wZQ' })).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
    await expect(list(svc, { filter: filterOf({ fromMs: T0 + HOUR, toMs: T0 }) })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
    });
  });

  test('bodies only when asked for', async ({ svc }) => {
    const response = await list(svc, { pageSize: 3, includeBodies: true });
    for (const log of response.logs)
      expect(Buffer.from(log.request!.requestBody!.data).toString()).toMatch(/^\{"n":\d+\}$/);
  });
});

describe('GetLog', () => {
  test('returns the log with bodies and log_format; NOT_FOUND outside the caller or unknown', async ({
    svc,
  }) => {
    const event = EVENTS.find((e) => e.organisationId !== ORG_B && e.apiKeyId === KEYS[1])!;
    const got = await call<GetLogRequest, GetLogResponse>(svc.client.getLog, svc.client, {
      caller: callerOf(),
      id: event.id,
    });
    expect(got.log?.request?.id).toBe(event.id);
    expect(got.log?.request?.latency?.totalUs).toBe(event.latency?.totalUs);
    expect(Buffer.from(got.log!.request!.requestBody!.data).toString()).toBe(
      Buffer.from(event.requestBody!.data).toString(),
    );
    expect(got.logFormat).toBe('json');
    const outside = [
      callerOf({ organisationId: ORG_B }),
      callerOf({ allWorkspaces: false, workspaceIds: [WS.find((w) => w !== event.workspaceId)!] }),
      callerOf({ restrictToApiKeys: true, restrictToApiKeyIds: [KEYS[0]] }),
    ];
    for (const caller of outside)
      await expect(call(svc.client.getLog, svc.client, { caller, id: event.id })).rejects.toMatchObject({
        code: status.NOT_FOUND,
      });
    await expect(
      call(svc.client.getLog, svc.client, { caller: callerOf(), id: '3e000000-0000-4000-8000-ffffffffffff' }),
    ).rejects.toMatchObject({ code: status.NOT_FOUND });
    await expect(
      call(svc.client.getLog, svc.client, { caller: callerOf(), id: 'nope' }),
    ).rejects.toMatchObject({
      code: status.NOT_FOUND,
    });
  });
});

describe('CallerContext', () => {
  const cases: [string, CallerContext, boolean][] = [
    ['another organisation sees only its own', callerOf({ organisationId: ORG_B }), true],
    ['no workspaces sees nothing', callerOf({ allWorkspaces: false, workspaceIds: [] }), false],
    ['one workspace', callerOf({ allWorkspaces: false, workspaceIds: [WS[0]] }), true],
    [
      'restricted with no keys sees nothing',
      callerOf({ restrictToApiKeys: true, restrictToApiKeyIds: [] }),
      false,
    ],
    [
      'restricted to one key',
      callerOf({
        allWorkspaces: false,
        workspaceIds: [WS[1]],
        restrictToApiKeys: true,
        restrictToApiKeyIds: [KEYS[3]],
      }),
      true,
    ],
    [
      'an unknown organisation sees nothing',
      callerOf({ organisationId: 'ffffffff-0000-4000-8000-000000000000' }),
      false,
    ],
  ];
  for (const [name, caller, any] of cases) {
    test(`${name}: lists, groups, summary and graphs agree`, async ({ svc }) => {
      const want = reference(caller, filterOf());
      expect(want.length > 0).toBe(any);
      expect(await listAll(svc, { caller, pageSize: 500 })).toEqual(want);
      const groups = await call<GetGroupsRequest, GetGroupsResponse>(svc.client.getGroups, svc.client, {
        caller,
        filter: filterOf(),
        groupBy: LogGroupBy.WORKSPACE,
        columns: [],
        pageSize: 50,
        currentPage: 0,
      });
      expect(groups.groups.reduce((n, g) => n + g.requestCount, 0)).toBe(want.length);
      const summary = await call<GetSummaryRequest, GetSummaryResponse>(svc.client.getSummary, svc.client, {
        caller,
        filter: filterOf(),
      });
      expect(summary.requestCount).toBe(want.length);
      const graph = await call<GetGraphRequest, GetGraphResponse>(svc.client.getGraph, svc.client, {
        caller,
        filter: filterOf({ fromMs: T0, toMs: T0 + 72 * HOUR }),
        metric: GraphMetric.REQUESTS,
        bucket: GraphBucket.DAY,
      });
      expect(graph.total).toBe(want.length);
    });
  }

  test('a request without an organisation is INVALID_ARGUMENT on every read', async ({ svc }) => {
    const caller = callerOf({ organisationId: '' });
    const calls: (() => Promise<unknown>)[] = [
      () => list(svc, { caller }),
      () => call(svc.client.getLog, svc.client, GetLogRequest.fromPartial({ caller, id: EVENTS[0]!.id })),
      () => call(svc.client.getSummary, svc.client, GetSummaryRequest.fromPartial({ filter: filterOf() })),
      () =>
        call(
          svc.client.getGroups,
          svc.client,
          GetGroupsRequest.fromPartial({ caller, groupBy: LogGroupBy.MODEL }),
        ),
      () =>
        call(
          svc.client.getGraph,
          svc.client,
          GetGraphRequest.fromPartial({ caller, metric: GraphMetric.REQUESTS }),
        ),
      () => call(svc.client.listAuditEvents, svc.client, ListAuditEventsRequest.fromPartial({ caller })),
    ];
    for (const run of calls) await expect(run()).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
  });
});

describe('GetGraph', () => {
  const range = filterOf({ fromMs: T0 + 2 * HOUR + 999, toMs: T0 + 50 * HOUR + 12_345 });
  const events = EVENTS.filter((e) => visible(e, callerOf()) && matches(e, range));
  const hourOf = (ms: number) => Math.floor(ms / HOUR) * HOUR;

  const metrics: [string, GraphMetric, (bucket: typeof events) => number][] = [
    ['requests', GraphMetric.REQUESTS, (b) => b.length],
    ['cost', GraphMetric.COST, (b) => totalsOf(b).cost],
    ['tokens', GraphMetric.TOKENS, (b) => totalsOf(b).total],
    [
      'avg latency',
      GraphMetric.AVG_LATENCY,
      (b) => (b.length ? (totalsOf(b).latencyMs.reduce((x, y) => x + y, 0) / b.length) * 1000 : 0),
    ],
    ['p50 latency', GraphMetric.P50_LATENCY, (b) => percentileCont(totalsOf(b).latencyMs, 0.5) * 1000],
    ['p95 latency', GraphMetric.P95_LATENCY, (b) => percentileCont(totalsOf(b).latencyMs, 0.95) * 1000],
    ['p99 latency', GraphMetric.P99_LATENCY, (b) => percentileCont(totalsOf(b).latencyMs, 0.99) * 1000],
    ['errors', GraphMetric.ERRORS, (b) => totalsOf(b).errors],
    ['error rate', GraphMetric.ERROR_RATE, (b) => (b.length ? totalsOf(b).errors / b.length : 0)],
    ['cache hit rate', GraphMetric.CACHE_HIT_RATE, (b) => (b.length ? totalsOf(b).hits / b.length : 0)],
    [
      'distinct users',
      GraphMetric.DISTINCT_USERS,
      (b) => new Set(b.map((e) => e.userId || e.metadata._user).filter(Boolean)).size,
    ],
  ];
  for (const [name, metric, reduce] of metrics) {
    test(`${name} per hour equals the reference, every bucket present`, async ({ svc }) => {
      const graph = await call<GetGraphRequest, GetGraphResponse>(svc.client.getGraph, svc.client, {
        caller: callerOf(),
        filter: range,
        metric,
        bucket: GraphBucket.HOUR,
      });
      expect(graph.bucket).toBe(GraphBucket.HOUR);
      expect(graph.points).toHaveLength(49);
      for (const point of graph.points) {
        const bucket = events.filter((e) => hourOf(e.receivedAtMs) === point.bucketStartAtMs);
        expect(
          close(point.value, reduce(bucket)),
          `${name} at ${new Date(point.bucketStartAtMs).toISOString()}`,
        ).toBe(true);
      }
      expect(close(graph.total, reduce(events)), `${name} total ${graph.total}`).toBe(true);
    });
  }

  test('day buckets start at UTC midnight; unspecified picks a width; too many buckets is INVALID_ARGUMENT', async ({
    svc,
  }) => {
    const days = await call<GetGraphRequest, GetGraphResponse>(svc.client.getGraph, svc.client, {
      caller: callerOf(),
      filter: filterOf({ fromMs: T0 + HOUR, toMs: T0 + 72 * HOUR }),
      metric: GraphMetric.REQUESTS,
      bucket: GraphBucket.DAY,
    });
    expect(days.points.map((p) => p.bucketStartAtMs)).toEqual([T0, T0 + 24 * HOUR, T0 + 48 * HOUR]);
    const picked = await call<GetGraphRequest, GetGraphResponse>(svc.client.getGraph, svc.client, {
      caller: callerOf(),
      filter: filterOf({ fromMs: T0, toMs: T0 + 72 * HOUR }),
      metric: GraphMetric.REQUESTS,
      bucket: GraphBucket.UNSPECIFIED,
    });
    expect(picked.bucket).toBe(GraphBucket.HOUR);
    await expect(
      call(svc.client.getGraph, svc.client, {
        caller: callerOf(),
        filter: filterOf({ fromMs: T0, toMs: T0 + 365 * 24 * HOUR }),
        metric: GraphMetric.REQUESTS,
        bucket: GraphBucket.MINUTE,
      }),
    ).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
  });
});

describe('GetSummary', () => {
  test('equals the reference over a filter', async ({ svc }) => {
    const filter = filterOf({ fromMs: T0 + 7 * HOUR + 3, toMs: T0 + 40 * HOUR, aiServices: ['openai'] });
    const events = EVENTS.filter((e) => visible(e, callerOf()) && matches(e, filter));
    const t = totalsOf(events);
    const s = await call<GetSummaryRequest, GetSummaryResponse>(svc.client.getSummary, svc.client, {
      caller: callerOf(),
      filter,
    });
    expect(s.requestCount).toBe(events.length);
    expect(s.cost?.amountMicros).toBe(t.cost);
    expect(s.tokens).toMatchObject({ inputTokens: t.input, outputTokens: t.output, totalTokens: t.total });
    expect(s.tokens?.cachedInputTokens).toBe(
      events.reduce((n, e) => n + (e.tokens?.cachedInputTokens ?? 0), 0),
    );
    expect(close(s.avgLatencyUs, (t.latencyMs.reduce((a, b) => a + b, 0) / t.requests) * 1000)).toBe(true);
    expect(close(s.p95LatencyUs, percentileCont(t.latencyMs, 0.95) * 1000)).toBe(true);
    expect(close(s.p99LatencyUs, percentileCont(t.latencyMs, 0.99) * 1000)).toBe(true);
    expect(s.errorCount).toBe(t.errors);
    expect(close(s.successRate, 1 - t.errors / t.requests)).toBe(true);
    expect(close(s.cacheHitRate, t.hits / t.requests)).toBe(true);
    expect(s.distinctUsers).toBe(
      new Set(events.map((e) => e.userId || e.metadata._user).filter(Boolean)).size,
    );
    expect(s.feedbackCount).toBe(0);
    expect(s.avgFeedback).toBeUndefined();
  });
});
