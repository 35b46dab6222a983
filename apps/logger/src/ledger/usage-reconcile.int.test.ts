import { openDatabase } from '@aigw/db';
import { test } from '@aigw/testkit';
import { describe, expect } from 'vitest';
import { migrations } from '../db/migrations/index.js';
import { type LogsDatabase, SCHEMA } from '../db/schema.js';
import { requestLogRow } from '../ingest/request-row.js';
import { storeRequestRows } from '../ingest/request-store.js';
import { DEFAULT_SHAPE, requestEvent } from '../testing/request-events.js';
import { FOREVER, monthPeriod } from './usage-ledger.js';
import { reconcileUsage, usageCounterKey } from './usage-reconcile.js';

const DAY_MS = 86_400_000;

describe('usage ledger reconcile', () => {
  test('raises lost or lower gateway budget counters to the ledger, never lowers one, skips closed periods', async ({
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
    const { start, end } = monthPeriod(now);
    try {
      const current = Array.from({ length: 30 }, (_, i) =>
        requestLogRow(requestEvent(i, { ...DEFAULT_SHAPE, startMs: start.getTime() + 1000, stepMs: 10 })),
      );
      const old = Array.from({ length: 5 }, (_, i) =>
        requestLogRow(
          requestEvent(i, { ...DEFAULT_SHAPE, startMs: start.getTime() - 40 * DAY_MS, stepMs: 10 }),
        ),
      );
      await db.transaction().execute((trx) => storeRequestRows(trx, [...current, ...old]));
      // Storing the same rows again charges nothing.
      await db.transaction().execute((trx) => storeRequestRows(trx, current));

      const org = DEFAULT_SHAPE.organisationId;
      const [k0 = '', k1 = ''] = DEFAULT_SHAPE.apiKeyIds;
      const sums = (rows: typeof current, key: string) => {
        const mine = rows.filter((r) => r.api_key_id === key);
        return {
          cost: mine.reduce((sum, r) => sum + Number(r.cost_micros), 0),
          tokens: mine.reduce((sum, r) => sum + Number(r.total_tokens), 0),
        };
      };
      const month = (key: string, measure: 'cost' | 'tokens') =>
        usageCounterKey(
          { organisation_id: org, entity_kind: 'api_key', entity_id: key, period_start: start },
          measure,
        );
      const ever = (key: string, measure: 'cost' | 'tokens') =>
        usageCounterKey(
          { organisation_id: org, entity_kind: 'api_key', entity_id: key, period_start: FOREVER.start },
          measure,
        );
      expect(month(k0, 'cost')).toBe(`lim:{${org}}:u:api_key:${k0}:cost:${start.getTime()}`);

      // The gateway already counted more for k1's cost than the ledger knows (charges in flight),
      // and holds a reservation and alert marks on its tokens counter.
      await redis.client.hset(month(k1, 'cost'), 'u', String(sums(current, k1).cost + 500), 'r', '7');
      await redis.client.hset(month(k1, 'tokens'), 'u', '1', 'r', '40', 'x', '1');
      await redis.client.pexpireat(month(k1, 'tokens'), end.getTime() + 3 * DAY_MS);

      const result = await reconcileUsage(db, redis.client, { nowMs: now });
      // API keys (3) and workspaces (2), each this month and "never resets".
      expect(result.entries).toBe(10);

      const u = async (key: string) => Number(await redis.client.hget(key, 'u'));
      expect(await u(month(k0, 'cost'))).toBe(sums(current, k0).cost);
      expect(await u(month(k0, 'tokens'))).toBe(sums(current, k0).tokens);
      expect(await u(month(k1, 'cost'))).toBe(sums(current, k1).cost + 500);
      expect(await u(month(k1, 'tokens'))).toBe(sums(current, k1).tokens);
      expect(await redis.client.hgetall(month(k1, 'tokens'))).toMatchObject({ r: '40', x: '1' });
      // A created key expires a day after its period; an existing key keeps its own expiry.
      expect(await redis.client.pexpiretime(month(k0, 'cost'))).toBe(end.getTime() + DAY_MS);
      expect(await redis.client.pexpiretime(month(k1, 'tokens'))).toBe(end.getTime() + 3 * DAY_MS);
      // "Never resets" holds everything ever stored, and never expires.
      expect(await u(ever(k0, 'cost'))).toBe(sums([...current, ...old], k0).cost);
      expect(await redis.client.pttl(ever(k0, 'cost'))).toBe(-1);

      const closed = monthPeriod(start.getTime() - 40 * DAY_MS).start;
      const closedKey = usageCounterKey(
        { organisation_id: org, entity_kind: 'api_key', entity_id: k0, period_start: closed },
        'cost',
      );
      expect(await redis.client.exists(closedKey)).toBe(0);

      // A second run (small pages) changes nothing.
      expect((await reconcileUsage(db, redis.client, { nowMs: now, pageSize: 2 })).raised).toBe(0);
    } finally {
      await database.close();
    }
  });
});
