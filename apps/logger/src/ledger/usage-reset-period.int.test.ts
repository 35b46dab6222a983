// A usage reset of a policy group on a limit that never resets (issue 17 item 2): the gateway
// reports the period from the reset with no end (period_start_ms = reset time, period_end_ms = 0);
// the ledger charges that period, not the one from 0, and reconciliation keeps its key without
// expiry like every period without end.
import { openDatabase } from '@aigw/db';
import { EntityKind, type RequestEvent, UsageLimitType } from '@aigw/proto';
import { test } from '@aigw/testkit';
import { describe, expect } from 'vitest';
import { migrations } from '../db/migrations/index.js';
import { type LogsDatabase, SCHEMA } from '../db/schema.js';
import { requestSink } from '../ingest/sinks.js';
import { batchBytes, DEFAULT_SHAPE, requestEvent } from '../testing/request-events.js';
import { FOREVER } from './usage-ledger.js';
import { reconcileUsage } from './usage-reconcile.js';

const ORG = DEFAULT_SHAPE.organisationId;
const POLICY = '77777777-7777-4777-8777-777777777777';
const [KEY = ''] = DEFAULT_SHAPE.apiKeyIds;

describe('usage ledger after a reset of a limit that never resets', () => {
  test('charges the period from the reset and reconciles its key without expiry', async ({ pg, redis }) => {
    const database = await openDatabase<LogsDatabase>({
      url: pg.url,
      schema: SCHEMA,
      applicationName: 'test',
      migrations,
    });
    const db = database.db;
    try {
      const resetAt = Date.now() - 60_000;
      const key = (start: number) => `lim:{${ORG}}:u:p:${POLICY}:digest:${start}`;
      const charged = (i: number, start: number, amount: number): RequestEvent => ({
        ...requestEvent(i, { ...DEFAULT_SHAPE, apiKeyIds: [KEY], startMs: resetAt + 1_000, stepMs: 1 }),
        usageCharges: [
          {
            ownerKind: EntityKind.USAGE_LIMIT_POLICY,
            ownerId: POLICY,
            groupValue: `api_key=${KEY}`,
            measure: UsageLimitType.TOKENS,
            periodStartMs: start,
            periodEndMs: 0,
            counterKey: key(start),
            amount,
          },
        ],
        usageChargesReported: true,
      });
      const { items, rejects } = requestSink.decode(batchBytes([charged(0, 0, 30), charged(1, resetAt, 7)]));
      expect(rejects).toEqual([]);
      await db.transaction().execute((trx) =>
        requestSink.store(
          trx,
          items.map((i) => i.value),
        ),
      );
      const rows = await db
        .selectFrom('usage_ledger')
        .select(['period_start', 'period_end', 'tokens', 'tokens_counter_key'])
        .where('entity_id', '=', POLICY)
        .orderBy('period_start')
        .execute();
      expect(
        rows.map((r) => [
          r.period_start.getTime(),
          r.period_end.getTime(),
          Number(r.tokens),
          r.tokens_counter_key,
        ]),
      ).toEqual([
        [0, FOREVER.end.getTime(), 30, key(0)],
        [resetAt, FOREVER.end.getTime(), 7, key(resetAt)],
      ]);
      await reconcileUsage(db, redis.client, { nowMs: Date.now() });
      expect(await redis.client.hget(key(resetAt), 'u')).toBe('7');
      expect(await redis.client.pttl(key(resetAt))).toBe(-1);
    } finally {
      await database.close();
    }
  });
});
