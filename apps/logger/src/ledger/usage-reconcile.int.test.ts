import { openDatabase } from '@aigw/db';
import { test } from '@aigw/testkit';
import { describe, expect } from 'vitest';
import { migrations } from '../db/migrations/index.js';
import { type LogsDatabase, SCHEMA } from '../db/schema.js';
import { requestLogRow } from '../ingest/request-row.js';
import { storeRequestRows } from '../ingest/request-store.js';
import { DEFAULT_SHAPE, requestEvent } from '../testing/request-events.js';
import { monthPeriod } from './usage-ledger.js';
import { reconcileUsage, usageCounterKey } from './usage-reconcile.js';

describe('usage ledger reconcile', () => {
  test('raises lost or lower Redis counters to the ledger, never lowers one, skips closed periods', async ({
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
    const now = Date.now();
    const { start } = monthPeriod(now);
    try {
      // This month's requests, and older ones in a closed period.
      const current = Array.from({ length: 30 }, (_, i) =>
        requestLogRow(requestEvent(i, { ...DEFAULT_SHAPE, startMs: start.getTime() + 1000, stepMs: 10 })),
      );
      const old = Array.from({ length: 5 }, (_, i) =>
        requestLogRow(
          requestEvent(i, { ...DEFAULT_SHAPE, startMs: start.getTime() - 40 * 86_400_000, stepMs: 10 }),
        ),
      );
      await db.transaction().execute((trx) => storeRequestRows(trx, [...current, ...old]));
      // Storing the same rows again charges nothing.
      await db.transaction().execute((trx) => storeRequestRows(trx, current));

      const keys = DEFAULT_SHAPE.apiKeyIds;
      const expected = (key: string) => {
        const mine = current.filter((r) => r.api_key_id === key);
        return {
          cost: mine.reduce((sum, r) => sum + Number(r.cost_micros), 0),
          tokens: mine.reduce((sum, r) => sum + Number(r.total_tokens), 0),
        };
      };
      const entry = (key: string) => ({
        entity_kind: 'api_key',
        entity_id: key,
        group_value: '',
        period_start: start,
      });
      const k0 = keys[0] ?? '';
      const k1 = keys[1] ?? '';
      // The gateway already counted more for k1 than the ledger knows (charges still in flight).
      await redis.client.set(
        usageCounterKey('aigw:usage', entry(k1), 'cost'),
        String(expected(k1).cost + 500),
      );
      await redis.client.set(usageCounterKey('aigw:usage', entry(k1), 'tokens'), '1');

      const result = await reconcileUsage(db, redis.client, { prefix: 'aigw:usage', nowMs: now });
      // 3 API keys + 2 workspaces of the current month.
      expect(result.entries).toBe(5);

      expect(Number(await redis.client.get(usageCounterKey('aigw:usage', entry(k0), 'cost')))).toBe(
        expected(k0).cost,
      );
      expect(Number(await redis.client.get(usageCounterKey('aigw:usage', entry(k0), 'tokens')))).toBe(
        expected(k0).tokens,
      );
      expect(Number(await redis.client.get(usageCounterKey('aigw:usage', entry(k1), 'cost')))).toBe(
        expected(k1).cost + 500,
      );
      expect(Number(await redis.client.get(usageCounterKey('aigw:usage', entry(k1), 'tokens')))).toBe(
        expected(k1).tokens,
      );
      const ttl = await redis.client.pttl(usageCounterKey('aigw:usage', entry(k0), 'cost'));
      expect(ttl).toBeGreaterThan(0);

      const closed = { ...entry(k0), period_start: monthPeriod(start.getTime() - 40 * 86_400_000).start };
      expect(await redis.client.get(usageCounterKey('aigw:usage', closed, 'cost'))).toBeNull();

      // A second run changes nothing.
      expect(
        (await reconcileUsage(db, redis.client, { prefix: 'aigw:usage', nowMs: now, pageSize: 2 })).raised,
      ).toBe(0);
    } finally {
      await database.close();
    }
  });
});
