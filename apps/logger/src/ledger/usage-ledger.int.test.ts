// The usage ledger from the gateway's usage charges, through the request sink (decode, then store
// in one transaction), and reconciliation of exactly the counters those charges name.
import { openDatabase } from '@aigw/db';
import { EntityKind, type RequestEvent, type UsageCharge, UsageLimitType } from '@aigw/proto';
import { test } from '@aigw/testkit';
import type { Kysely } from 'kysely';
import { describe, expect } from 'vitest';
import { migrations } from '../db/migrations/index.js';
import { type LogsDatabase, SCHEMA } from '../db/schema.js';
import { requestSink } from '../ingest/sinks.js';
import { batchBytes, DEFAULT_SHAPE, requestEvent } from '../testing/request-events.js';
import { FOREVER, monthPeriod } from './usage-ledger.js';
import { reconcileUsage } from './usage-reconcile.js';

const DAY = 86_400_000;
const ORG = DEFAULT_SHAPE.organisationId;
const POLICY = '55555555-5555-4555-8555-555555555555';
const DAYS_POLICY = '66666666-6666-4666-8666-666666666666';
const [KEY_A = '', KEY_B = ''] = DEFAULT_SHAPE.apiKeyIds;

/** The period of length `len` from `anchor` that holds `at` (the gateway's fixed periods). */
const fixed = (anchor: number, len: number, at: number) => {
  const start = anchor + Math.floor((at - anchor) / len) * len;
  return { start, end: start + len };
};

async function store(db: Kysely<LogsDatabase>, events: RequestEvent[]) {
  const { items, rejects } = requestSink.decode(batchBytes(events));
  expect(rejects).toEqual([]);
  return db.transaction().execute((trx) =>
    requestSink.store(
      trx,
      items.map((i) => i.value),
    ),
  );
}

async function ledger(db: Kysely<LogsDatabase>) {
  const rows = await db
    .selectFrom('usage_ledger')
    .selectAll()
    .orderBy('entity_kind')
    .orderBy('group_value')
    .orderBy('period_start')
    .execute();
  return rows.map((r) => ({
    kind: r.entity_kind,
    id: r.entity_id,
    group: r.group_value,
    start: r.period_start.getTime(),
    end: r.period_end.getTime(),
    cost: Number(r.cost_micros),
    tokens: Number(r.tokens),
    requests: Number(r.requests),
    costKey: r.cost_counter_key,
    tokensKey: r.tokens_counter_key,
  }));
}

describe('usage ledger from usage charges', () => {
  test('charges policies per group value and weekly / N-day anchored periods exactly once, and reconciles their keys', async ({
    pg,
    redis,
  }) => {
    const database = await openDatabase<LogsDatabase>({
      url: pg.url,
      schema: SCHEMA,
      applicationName: 'test',
      migrations,
    });
    const db = database.db;
    try {
      const now = Date.now();
      const anchor = now - 10 * DAY - 3_600_000;
      const week = fixed(anchor, 7 * DAY, now);
      const lastWeek = { start: week.start - 7 * DAY, end: week.start };
      const threeDays = fixed(anchor, 3 * DAY, now);
      const weekKey = (group: string, start: number) => `lim:{${ORG}}:u:p:${POLICY}:digest-${group}:${start}`;
      const daysKey = `lim:{${ORG}}:u:p:${DAYS_POLICY}:digest-ws:${threeDays.start}`;
      const keyTokens = (key: string) => `lim:{${ORG}}:u:api_key:${key}:tokens:0`;

      /** Event i of api key `key`, in the period `p` of the weekly cost policy. */
      const charged = (i: number, key: string, p: { start: number; end: number }, cost: number) => {
        const event = requestEvent(i, {
          ...DEFAULT_SHAPE,
          apiKeyIds: [key],
          startMs: p.start + 1_000,
          stepMs: 1,
        });
        const tokens = event.tokens?.totalTokens ?? 0;
        const charges: UsageCharge[] = [
          {
            ownerKind: EntityKind.USAGE_LIMIT_POLICY,
            ownerId: POLICY,
            groupValue: `api_key=${key}`,
            measure: UsageLimitType.COST,
            periodStartMs: p.start,
            periodEndMs: p.end,
            counterKey: weekKey(key, p.start),
            amount: cost,
          },
          {
            ownerKind: EntityKind.USAGE_LIMIT_POLICY,
            ownerId: DAYS_POLICY,
            groupValue: 'workspace_id=ws',
            measure: UsageLimitType.TOKENS,
            periodStartMs: threeDays.start,
            periodEndMs: threeDays.end,
            counterKey: daysKey,
            amount: tokens,
          },
          {
            ownerKind: EntityKind.API_KEY,
            ownerId: key,
            groupValue: '',
            measure: UsageLimitType.TOKENS,
            periodStartMs: 0,
            periodEndMs: 0,
            counterKey: keyTokens(key),
            amount: tokens,
          },
        ];
        return { ...event, usageCharges: charges, usageChargesReported: true };
      };
      const events = [
        charged(0, KEY_A, week, 100),
        charged(1, KEY_A, week, 250),
        charged(2, KEY_B, week, 40),
        charged(3, KEY_B, lastWeek, 7),
      ];
      const tokensOf = (e: RequestEvent[]) => e.reduce((n, x) => n + (x.tokens?.totalTokens ?? 0), 0);
      expect((await store(db, events)).inserted).toBe(4);
      // Redelivered: stored once, charged once.
      expect((await store(db, events.slice(0, 2))).inserted).toBe(0);

      const rows = await ledger(db);
      const policyRows = rows.filter((r) => r.id === POLICY);
      expect(policyRows).toEqual([
        {
          kind: 'usage_limit_policy',
          id: POLICY,
          group: `api_key=${KEY_A}`,
          start: week.start,
          end: week.end,
          cost: 350,
          tokens: tokensOf(events.slice(0, 2)),
          requests: 2,
          costKey: weekKey(KEY_A, week.start),
          tokensKey: null,
        },
        {
          kind: 'usage_limit_policy',
          id: POLICY,
          group: `api_key=${KEY_B}`,
          start: lastWeek.start,
          end: lastWeek.end,
          cost: 7,
          tokens: tokensOf(events.slice(3)),
          requests: 1,
          costKey: weekKey(KEY_B, lastWeek.start),
          tokensKey: null,
        },
        {
          kind: 'usage_limit_policy',
          id: POLICY,
          group: `api_key=${KEY_B}`,
          start: week.start,
          end: week.end,
          cost: 40,
          tokens: tokensOf(events.slice(2, 3)),
          requests: 1,
          costKey: weekKey(KEY_B, week.start),
          tokensKey: null,
        },
      ]);
      expect(rows.find((r) => r.id === DAYS_POLICY)).toMatchObject({
        group: 'workspace_id=ws',
        start: threeDays.start,
        end: threeDays.end,
        tokens: tokensOf(events),
        requests: 4,
        tokensKey: daysKey,
        costKey: null,
      });
      expect(rows.find((r) => r.kind === 'api_key' && r.id === KEY_A)).toMatchObject({
        group: '',
        start: 0,
        end: FOREVER.end.getTime(),
        tokens: tokensOf(events.slice(0, 2)),
        tokensKey: keyTokens(KEY_A),
      });
      // Nothing derived for events that report their charges: no monthly rows, no workspace rows.
      expect(rows.filter((r) => r.kind === 'workspace')).toEqual([]);
      expect(rows).toHaveLength(6);

      // A gateway that admitted a request no budget applied to reports no charges: nothing charged.
      await store(db, [{ ...requestEvent(9), usageChargesReported: true }]);
      expect(await ledger(db)).toHaveLength(6);
      // An event of an older gateway is charged as before (key and workspace, month and forever).
      const old = requestEvent(10, {
        ...DEFAULT_SHAPE,
        apiKeyIds: ['77777777-7777-4777-8777-777777777777'],
        startMs: now - 1000,
      });
      await store(db, [old]);
      const derived = (await ledger(db)).filter((r) => r.id === '77777777-7777-4777-8777-777777777777');
      expect(derived.map((r) => r.start).sort()).toEqual([0, monthPeriod(now - 1000).start.getTime()].sort());

      // Reconcile after a Redis loss: exactly the charged counters of open periods come back.
      await redis.client.hset(weekKey(KEY_A, week.start), 'u', '1', 'r', '9');
      await reconcileUsage(db, redis.client, { nowMs: now });
      const u = async (key: string) => Number(await redis.client.hget(key, 'u'));
      expect(await u(weekKey(KEY_A, week.start))).toBe(350);
      expect(await redis.client.hget(weekKey(KEY_A, week.start), 'r')).toBe('9');
      expect(await u(weekKey(KEY_B, week.start))).toBe(40);
      expect(await redis.client.pexpiretime(weekKey(KEY_B, week.start))).toBe(week.end + DAY);
      expect(await u(daysKey)).toBe(tokensOf(events));
      expect(await redis.client.pexpiretime(daysKey)).toBe(threeDays.end + DAY);
      expect(await u(keyTokens(KEY_B))).toBe(tokensOf(events.slice(2)));
      expect(await redis.client.pttl(keyTokens(KEY_B))).toBe(-1);
      // A closed period is not raised, and charged rows get no derived entity keys.
      expect(await redis.client.exists(weekKey(KEY_B, lastWeek.start))).toBe(0);
      expect(await redis.client.exists(`lim:{${ORG}}:u:api_key:${KEY_A}:cost:0`)).toBe(0);
      expect(
        await redis.client.exists(`lim:{${ORG}}:u:usage_limit_policy:${POLICY}:cost:${week.start}`),
      ).toBe(0);
      // The older gateway's derived row still gets its entity keys.
      expect(await u(`lim:{${ORG}}:u:api_key:77777777-7777-4777-8777-777777777777:tokens:0`)).toBe(
        old.tokens?.totalTokens,
      );
    } finally {
      await database.close();
    }
  });
});
