// GetGroups against real Postgres: every groupBy x column equals a reference computed from the raw
// events, across rollup-only, rollup + raw-edge and raw-only paths.
import {
  type GetGroupsRequest,
  type GetGroupsResponse,
  type LogFilter,
  LogGroupBy,
  LogGroupColumn,
  type RequestEvent,
} from '@aigw/proto';
import { test as base } from '@aigw/testkit';
import { status } from '@grpc/grpc-js';
import { describe, expect } from 'vitest';
import {
  call,
  callerOf,
  close,
  filterOf,
  GROUP_KEY,
  groupBy,
  HOUR,
  makeEvents,
  matches,
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

const EVENTS = makeEvents(1500);

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

const GROUP_BYS = Object.keys(GROUP_KEY).map(Number) as LogGroupBy[];
const COLUMNS = Object.values(LogGroupColumn).filter(
  (v): v is LogGroupColumn => typeof v === 'number' && v > 0,
);

function groups(svc: TestService, request: Partial<GetGroupsRequest>): Promise<GetGroupsResponse> {
  return call(svc.client.getGroups, svc.client, {
    caller: callerOf(),
    filter: filterOf(),
    groupBy: LogGroupBy.MODEL,
    columns: [],
    pageSize: 500,
    currentPage: 0,
    ...request,
  });
}

/** The expected value of one column for a group's events; undefined for request_count only. */
function expected(column: LogGroupColumn, events: readonly RequestEvent[]): number {
  const t = totalsOf(events);
  switch (column) {
    case LogGroupColumn.COST:
      return t.cost;
    case LogGroupColumn.TOTAL_TOKENS:
      return t.total;
    case LogGroupColumn.AVG_TOKENS:
      return t.total / t.requests;
    case LogGroupColumn.AVG_INPUT_TOKENS:
      return t.input / t.requests;
    case LogGroupColumn.AVG_OUTPUT_TOKENS:
      return t.output / t.requests;
    case LogGroupColumn.AVG_LATENCY:
      return (t.latencyMs.reduce((a, b) => a + b, 0) / t.requests) * 1000;
    case LogGroupColumn.P95_LATENCY:
      return percentileCont(t.latencyMs, 0.95) * 1000;
    case LogGroupColumn.P99_LATENCY:
      return percentileCont(t.latencyMs, 0.99) * 1000;
    case LogGroupColumn.SUCCESS_RATE:
      return 1 - t.errors / t.requests;
    case LogGroupColumn.ERROR_COUNT:
      return t.errors;
    case LogGroupColumn.CACHE_HIT_RATE:
      return t.hits / t.requests;
    case LogGroupColumn.LAST_SEEN:
      return t.last;
    case LogGroupColumn.FIRST_SEEN:
      return t.first;
    default:
      throw new Error(`no reference for column ${column}`);
  }
}

function actual(column: LogGroupColumn, g: GetGroupsResponse['groups'][number]): number | undefined {
  switch (column) {
    case LogGroupColumn.COST:
      return g.cost?.amountMicros;
    case LogGroupColumn.TOTAL_TOKENS:
      return g.totalTokens;
    case LogGroupColumn.AVG_TOKENS:
      return g.avgTokens;
    case LogGroupColumn.AVG_INPUT_TOKENS:
      return g.avgInputTokens;
    case LogGroupColumn.AVG_OUTPUT_TOKENS:
      return g.avgOutputTokens;
    case LogGroupColumn.AVG_LATENCY:
      return g.avgLatencyUs;
    case LogGroupColumn.P95_LATENCY:
      return g.p95LatencyUs;
    case LogGroupColumn.P99_LATENCY:
      return g.p99LatencyUs;
    case LogGroupColumn.SUCCESS_RATE:
      return g.successRate;
    case LogGroupColumn.ERROR_COUNT:
      return g.errorCount;
    case LogGroupColumn.CACHE_HIT_RATE:
      return g.cacheHitRate;
    case LogGroupColumn.LAST_SEEN:
      return g.lastSeenAtMs;
    case LogGroupColumn.FIRST_SEEN:
      return g.firstSeenAtMs;
    default:
      return undefined;
  }
}

async function expectGroups(
  svc: TestService,
  groupByValue: LogGroupBy,
  columns: LogGroupColumn[],
  filter: LogFilter,
) {
  const caller = callerOf();
  const response = await groups(svc, { groupBy: groupByValue, columns, filter });
  const reference = groupBy(
    EVENTS.filter((e) => visible(e, caller) && matches(e, filter)),
    GROUP_KEY[groupByValue]!,
  );
  expect(response.total).toBe(reference.size);
  expect(new Set(response.groups.map((g) => g.key))).toEqual(new Set(reference.keys()));
  const counts = response.groups.map((g) => g.requestCount);
  expect(counts).toEqual([...counts].sort((a, b) => b - a));
  for (const group of response.groups) {
    const events = reference.get(group.key)!;
    expect(group.requestCount, `${group.key} request_count`).toBe(events.length);
    for (const column of columns) {
      const want = expected(column, events);
      const got = actual(column, group);
      expect(
        close(got, want),
        `${LogGroupBy[groupByValue]} ${group.key} ${LogGroupColumn[column]}: ${got} != ${want}`,
      ).toBe(true);
    }
    // A column is present exactly when it was asked for.
    for (const column of COLUMNS.filter((c) => !columns.includes(c)))
      expect(actual(column, group), `${LogGroupColumn[column]} not requested`).toBeUndefined();
  }
}

// Not on hour boundaries: whole hours come from the rollups, the edges from raw rows.
const RANGE = filterOf({ fromMs: T0 + 5 * HOUR + 1_234_567, toMs: T0 + 60 * HOUR + 777_777 });

describe('GetGroups: every groupBy x column equals the reference', () => {
  for (const groupByValue of GROUP_BYS) {
    for (const column of COLUMNS) {
      test(`${LogGroupBy[groupByValue]} x ${LogGroupColumn[column]}`, async ({ svc }) => {
        await expectGroups(svc, groupByValue, [column], RANGE);
      });
    }
  }
});

describe('GetGroups: all columns at once, per filter path', () => {
  const filters: [string, LogFilter][] = [
    ['unbounded (rollups only)', filterOf()],
    [
      'within one hour (raw only)',
      filterOf({ fromMs: T0 + 10 * HOUR + 60_000, toMs: T0 + 10 * HOUR + 3_000_000 }),
    ],
    [
      'raw-only filter (metadata and cost range)',
      filterOf({ metadata: [{ key: 'env', value: 'prod' }], costMicros: { min: 10_000, max: 40_000 } }),
    ],
    [
      'rollup dimensions (workspace, status, provider type)',
      { ...RANGE, workspaceIds: [WS[0]], statusCodes: [200, 500], aiServices: ['openai'] },
    ],
  ];
  for (const [name, filter] of filters) {
    for (const groupByValue of GROUP_BYS) {
      test(`${name}: ${LogGroupBy[groupByValue]}`, async ({ svc }) => {
        await expectGroups(svc, groupByValue, COLUMNS, filter);
      });
    }
  }
});

describe('GetGroups: paging and bad input', () => {
  test('pages are ordered by request count and add up to the total', async ({ svc }) => {
    const all = await groups(svc, { groupBy: LogGroupBy.API_KEY, pageSize: 500 });
    const pages = [];
    for (let page = 0; page < 3; page++)
      pages.push(
        ...(await groups(svc, { groupBy: LogGroupBy.API_KEY, pageSize: 2, currentPage: page })).groups,
      );
    expect(pages.map((g) => g.key)).toEqual(all.groups.map((g) => g.key));
    const past = await groups(svc, { groupBy: LogGroupBy.API_KEY, pageSize: 2, currentPage: 50 });
    expect(past).toEqual({ groups: [], total: all.total });
  });

  test('an unknown groupBy or column is INVALID_ARGUMENT', async ({ svc }) => {
    await expect(groups(svc, { groupBy: LogGroupBy.UNSPECIFIED })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
    });
    await expect(groups(svc, { groupBy: 99 as LogGroupBy })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
    });
    await expect(groups(svc, { columns: [LogGroupColumn.UNSPECIFIED] })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
    });
    await expect(groups(svc, { columns: [42 as LogGroupColumn] })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
    });
  });
});
