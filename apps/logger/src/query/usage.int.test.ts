// GetUsage through LogsService against real Postgres: ledger rows become per-query amounts, in
// order; exact and part-matched groups; periods; other organisations' rows are never read.
import {
  EntityKind,
  GetUsageRequest,
  type GetUsageResponse,
  PeriodicReset,
  type UsageQuery,
  usagePeriodAt,
} from '@aigw/proto';
import { test as base, createTestDatabase, testkitContext } from '@aigw/testkit';
import { type ServiceError, status } from '@grpc/grpc-js';
import type { Kysely } from 'kysely';
import { describe, expect } from 'vitest';
import type { LogsDatabase } from '../db/schema.js';
import {
  call,
  callerOf,
  KEYS,
  makeEvents,
  ORG_A,
  ORG_B,
  openLogsDatabase,
  startService,
  storeEvents,
  type TestService,
} from './query.test-support.js';

const POLICY = '5a000000-0000-4000-8000-000000000001';
const MAY = Date.UTC(2026, 4, 1);
const JUNE = Date.UTC(2026, 5, 1);

type Row = {
  kind: string;
  id: string;
  group?: string;
  start: number;
  org?: string;
  cost: number;
  tokens: number;
};
const ROWS: Row[] = [
  { kind: 'api_key', id: KEYS[0], start: MAY, cost: 1_234_567, tokens: 900 },
  { kind: 'api_key', id: KEYS[0], start: JUNE, cost: 5, tokens: 1 },
  { kind: 'api_key', id: KEYS[0], start: 0, cost: 9_000_001, tokens: 5000 },
  { kind: 'workspace', id: KEYS[0], start: MAY, cost: 7, tokens: 7 },
  // The same key id in another organisation: never visible to ORG_A.
  { kind: 'api_key', id: KEYS[1], start: MAY, org: ORG_B, cost: 42_000_000, tokens: 4200 },
  { kind: 'integration', id: KEYS[2], group: 'workspace_id=w1', start: MAY, cost: 250_000, tokens: 10 },
  {
    kind: 'usage_limit_policy',
    id: POLICY,
    group: `api_key=${KEYS[0]}&model=a`,
    start: MAY,
    cost: 100,
    tokens: 1,
  },
  {
    kind: 'usage_limit_policy',
    id: POLICY,
    group: `api_key=${KEYS[0]}&model=b`,
    start: MAY,
    cost: 20,
    tokens: 2,
  },
  {
    kind: 'usage_limit_policy',
    id: POLICY,
    group: `api_key=${KEYS[1]}&model=a`,
    start: MAY,
    cost: 3,
    tokens: 3,
  },
  {
    kind: 'usage_limit_policy',
    id: POLICY,
    group: `api_key=${KEYS[0]}&model=a`,
    start: JUNE,
    cost: 4000,
    tokens: 4,
  },
  {
    kind: 'usage_limit_policy',
    id: POLICY,
    group: `api_key=${KEYS[3]}&model=a`,
    start: MAY,
    org: ORG_B,
    cost: 50_000,
    tokens: 5,
  },
];

const q = (ownerKind: EntityKind, ownerId: string, periodStartMs: number, more: Partial<UsageQuery> = {}) =>
  ({ ownerKind, ownerId, groupValue: '', groupParts: [], periodStartMs, ...more }) satisfies UsageQuery;

const test = base.extend<{ ctx: { svc: TestService; db: Kysely<LogsDatabase> } }>({
  ctx: [
    async ({ pg }, use) => {
      const database = await openLogsDatabase(pg);
      await database.db
        .insertInto('usage_ledger')
        .values(
          ROWS.map((r) => ({
            entity_kind: r.kind,
            entity_id: r.id,
            group_value: r.group ?? '',
            period_start: new Date(r.start),
            period_end: new Date(r.start === 0 ? Date.UTC(9999, 11, 31) : r.start + 31 * 86_400_000),
            organisation_id: r.org ?? ORG_A,
            cost_micros: r.cost,
            tokens: r.tokens,
            requests: 1,
          })),
        )
        .execute();
      const svc = await startService(database.db);
      await use({ svc, db: database.db });
      await svc.close();
      await database.close();
    },
    { scope: 'file' },
  ],
});

const getUsage = (svc: TestService, request: Partial<GetUsageRequest>) =>
  call<GetUsageRequest, GetUsageResponse>(
    svc.client.getUsage,
    svc.client,
    GetUsageRequest.fromPartial({ caller: callerOf(), ...request }),
  );

describe('LogsService.GetUsage', () => {
  test('answers each query from the ledger, in order, zeros where nothing is recorded', async ({ ctx }) => {
    const { usage } = await getUsage(ctx.svc, {
      queries: [
        q(EntityKind.API_KEY, KEYS[0], MAY),
        q(EntityKind.API_KEY, KEYS[0], 0),
        q(EntityKind.WORKSPACE, KEYS[0], MAY),
        q(EntityKind.API_KEY, KEYS[3], MAY),
        q(EntityKind.INTEGRATION, KEYS[2], MAY, { groupValue: 'workspace_id=w1' }),
        q(EntityKind.INTEGRATION, KEYS[2], MAY),
        q(EntityKind.API_KEY, KEYS[0], MAY),
      ],
    });
    expect(usage).toEqual([
      { costMicros: 1_234_567, costUsd: 1.234567, tokens: 900, requests: 1 },
      { costMicros: 9_000_001, costUsd: 9.000001, tokens: 5000, requests: 1 },
      { costMicros: 7, costUsd: 0.000007, tokens: 7, requests: 1 },
      { costMicros: 0, costUsd: 0, tokens: 0, requests: 0 },
      { costMicros: 250_000, costUsd: 0.25, tokens: 10, requests: 1 },
      { costMicros: 0, costUsd: 0, tokens: 0, requests: 0 },
      { costMicros: 1_234_567, costUsd: 1.234567, tokens: 900, requests: 1 },
    ]);
  });

  test('policy groups: exact, or summed over every group holding the given parts', async ({ ctx }) => {
    const { usage } = await getUsage(ctx.svc, {
      queries: [
        q(EntityKind.USAGE_LIMIT_POLICY, POLICY, MAY, { groupValue: `api_key=${KEYS[0]}&model=a` }),
        q(EntityKind.USAGE_LIMIT_POLICY, POLICY, MAY, { groupParts: [`api_key=${KEYS[0]}`] }),
        q(EntityKind.USAGE_LIMIT_POLICY, POLICY, MAY, { groupParts: ['model=a'] }),
        q(EntityKind.USAGE_LIMIT_POLICY, POLICY, MAY, { groupParts: [`api_key=${KEYS[0]}`, 'model=b'] }),
        q(EntityKind.USAGE_LIMIT_POLICY, POLICY, JUNE, { groupParts: [`api_key=${KEYS[0]}`] }),
        // A prefix of a value is not a match.
        q(EntityKind.USAGE_LIMIT_POLICY, POLICY, MAY, { groupParts: ['api_key=2a'] }),
      ],
    });
    expect(usage.map((u) => u.costMicros)).toEqual([100, 120, 103, 20, 4000, 0]);
    expect(usage.map((u) => u.requests)).toEqual([1, 2, 2, 1, 1, 0]);
  });

  test("never reads another organisation's rows", async ({ ctx }) => {
    const queries = [
      q(EntityKind.API_KEY, KEYS[1], MAY),
      q(EntityKind.USAGE_LIMIT_POLICY, POLICY, MAY, { groupParts: ['model=a'] }),
      q(EntityKind.USAGE_LIMIT_POLICY, POLICY, MAY, { groupValue: `api_key=${KEYS[3]}&model=a` }),
    ];
    const a = await getUsage(ctx.svc, { queries });
    expect(a.usage.map((u) => u.costMicros)).toEqual([0, 103, 0]);
    const b = await getUsage(ctx.svc, { caller: callerOf({ organisationId: ORG_B }), queries });
    expect(b.usage.map((u) => u.costMicros)).toEqual([42_000_000, 50_000, 50_000]);
    // Workspace scoping does not widen nor narrow it: the ledger has no workspace.
    const narrow = await getUsage(ctx.svc, {
      caller: callerOf({ allWorkspaces: false, workspaceIds: [] }),
      queries,
    });
    expect(narrow.usage.map((u) => u.costMicros)).toEqual([0, 103, 0]);
  });

  test('rejects bad queries with INVALID_ARGUMENT', async ({ ctx }) => {
    const code = (request: Partial<GetUsageRequest>) =>
      getUsage(ctx.svc, request).then(
        () => 'ok',
        (err: ServiceError) => err.code,
      );
    expect(await code({ caller: callerOf({ organisationId: '' }), queries: [] })).toBe(
      status.INVALID_ARGUMENT,
    );
    expect(await code({ queries: [q(EntityKind.CONFIG, KEYS[0], MAY)] })).toBe(status.INVALID_ARGUMENT);
    expect(await code({ queries: [q(EntityKind.API_KEY, '', MAY)] })).toBe(status.INVALID_ARGUMENT);
    expect(await code({ queries: [q(EntityKind.API_KEY, KEYS[0], -1)] })).toBe(status.INVALID_ARGUMENT);
    expect(
      await code({ queries: [q(EntityKind.USAGE_LIMIT_POLICY, POLICY, MAY, { groupParts: ['a=1&b=2'] })] }),
    ).toBe(status.INVALID_ARGUMENT);
    expect(
      await code({ queries: Array.from({ length: 1001 }, () => q(EntityKind.API_KEY, KEYS[0], MAY)) }),
    ).toBe(status.INVALID_ARGUMENT);
    expect(await code({ queries: [] })).toBe('ok');
  });
});

describe('LogsService.GetUsage over ingested requests', () => {
  test('equals the raw sums of the stored events for the calendar month and "never resets"', async ({
    pg,
  }) => {
    // A database of its own: the file's holds the hand-written ledger rows above.
    const own = await createTestDatabase(testkitContext().databaseUrl);
    const database = await openLogsDatabase({ ...pg, url: own.url });
    const svc = await startService(database.db);
    try {
      // The ledger is keyed by entity id alone (ids are unique across organisations), so only one
      // organisation's events: the generator reuses key ids across its two organisations.
      const events = makeEvents(300, 11).filter((e) => e.organisationId === ORG_A);
      await storeEvents(database.db, events);
      const monthly = { periodicReset: PeriodicReset.MONTHLY, periodicResetDays: 0, nextUsageResetAtMs: 0 };
      const starts = [...new Set(events.map((e) => usagePeriodAt(monthly, e.receivedAtMs).startMs))];
      const cases = KEYS.flatMap((key) => [0, ...starts].map((start) => ({ key, start })));
      const { usage } = await getUsage(svc, {
        queries: cases.map((c) => q(EntityKind.API_KEY, c.key, c.start)),
      });
      const expected = cases.map(({ key, start }) => {
        const mine = events.filter(
          (e) =>
            e.apiKeyId === key && (start === 0 || usagePeriodAt(monthly, e.receivedAtMs).startMs === start),
        );
        return {
          cost: mine.reduce((s, e) => s + (e.cost?.amountMicros ?? 0), 0),
          tokens: mine.reduce((s, e) => s + (e.tokens?.totalTokens ?? 0), 0),
          requests: mine.length,
        };
      });
      expect(expected.some((e) => e.requests > 0)).toBe(true);
      expect(usage.map((u) => ({ cost: u.costMicros, tokens: u.tokens, requests: u.requests }))).toEqual(
        expected,
      );
    } finally {
      await svc.close();
      await database.close();
      await own.drop();
    }
  });
});
