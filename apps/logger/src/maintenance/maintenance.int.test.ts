import { openDatabase } from '@aigw/db';
import { createLogger } from '@aigw/runtime';
import { test } from '@aigw/testkit';
import { describe, expect } from 'vitest';
import { migrations } from '../db/migrations/index.js';
import { type LogsDatabase, SCHEMA } from '../db/schema.js';
import { requestLogRow } from '../ingest/request-row.js';
import { storeRequestRows } from '../ingest/request-store.js';
import { DEFAULT_SHAPE, requestEvent } from '../testing/request-events.js';
import { dropExpiredPartitions, ensurePartitions, listPartitions, partitionName } from './partitions.js';
import { applyRetention } from './retention.js';
import { startSingletonTask } from './singleton-task.js';

const DAY_MS = 86_400_000;

const open = (pg: { url: string }) =>
  openDatabase<LogsDatabase>({ url: pg.url, schema: SCHEMA, applicationName: 'test', migrations });
const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);

describe('partition maintenance and retention', () => {
  test('creates partitions ahead, moves default rows into a new partition, drops expired days', async ({
    pg,
  }) => {
    const database = await open(pg);
    const db = database.db;
    try {
      // Rows of three days arrive before any partition exists: the default partition keeps them.
      const days = [NOW - 100 * DAY_MS, NOW - 2 * DAY_MS, NOW];
      const rows = days.flatMap((day, d) =>
        Array.from({ length: 4 }, (_, i) =>
          requestLogRow(requestEvent(i, { ...DEFAULT_SHAPE, startMs: day + d, stepMs: 1000 })),
        ),
      );
      await db.transaction().execute((trx) => storeRequestRows(trx, rows));
      expect(await count(pg, 'select count(*) as n from logs.request_logs_default')).toBe(12);

      const created = await ensurePartitions(db, NOW, 2);
      expect(created).toEqual([-1, 0, 1, 2].map((d) => partitionName(NOW - (NOW % DAY_MS) + d * DAY_MS)));
      // Today's rows moved out of the default partition; the others are still there.
      expect(await count(pg, `select count(*) as n from logs.${partitionName(NOW - (NOW % DAY_MS))}`)).toBe(
        4,
      );
      expect(await count(pg, 'select count(*) as n from logs.request_logs_default')).toBe(8);
      expect(await ensurePartitions(db, NOW, 2)).toEqual([]);

      // A partition for the older day, then 90-day retention: the 100-day-old rows go, the rest stay.
      const oldDay = NOW - 100 * DAY_MS;
      await ensurePartitions(db, oldDay, 0);
      expect(await listPartitions(db)).toContain(partitionName(oldDay - (oldDay % DAY_MS)));
      const dropped = await dropExpiredPartitions(db, NOW, 90);
      expect(dropped).toEqual([-1, 0].map((d) => partitionName(oldDay - (oldDay % DAY_MS) + d * DAY_MS)));
      expect(await count(pg, 'select count(*) as n from logs.request_logs')).toBe(8);
      expect(
        await count(pg, 'select count(*) as n from logs.request_logs where received_at < $1', [
          new Date(NOW - 90 * DAY_MS),
        ]),
      ).toBe(0);

      // Rollups follow the metrics retention, not the log retention.
      expect(
        await count(pg, 'select count(*) as n from logs.request_rollups_hourly where bucket < $1', [
          new Date(NOW - 90 * DAY_MS),
        ]),
      ).toBeGreaterThan(0);
      const deleted = await applyRetention(db, NOW, { logs: 90, metrics: 50, exports: 7 });
      expect(deleted.rollups).toBeGreaterThan(0);
      expect(
        await count(pg, 'select count(*) as n from logs.request_rollups_hourly where bucket < $1', [
          new Date(NOW - 50 * DAY_MS),
        ]),
      ).toBe(0);
      expect(await count(pg, 'select sum(requests) as n from logs.request_rollups_hourly')).toBe(8);
    } finally {
      await database.close();
    }
  });

  test('finished exports go after EXPORT_RETENTION_DAYS with their chunks; queued and running ones stay', async ({
    pg,
  }) => {
    const database = await open(pg);
    try {
      const at = (days: number) => new Date(NOW - days * DAY_MS);
      // [status, completed_at, updated_at]: only the first three are finished and older than 7 days.
      const rows: [string, Date | null, Date][] = [
        ['succeeded', at(8), at(8)],
        ['failed', at(10), at(10)],
        ['cancelled', null, at(9)],
        ['succeeded', at(6), at(6)],
        ['pending', null, at(30)],
        ['running', null, at(30)],
      ];
      const ids: string[] = [];
      for (const [status, completedAt, updatedAt] of rows) {
        const { rows: inserted } = await pg.pool.query<{ id: string }>(
          `insert into logs.log_exports (organisation_id, fields, format, status, completed_at, updated_at, created_at)
           values ('org-1', '{id}', 'jsonl', $1, $2, $3, $3) returning id`,
          [status, completedAt, updatedAt],
        );
        const id = inserted[0]?.id ?? '';
        ids.push(id);
        await pg.pool.query(
          `insert into logs.log_export_chunks (export_id, seq, data) values ($1, 0, '\\x00')`,
          [id],
        );
      }
      const deleted = await applyRetention(database.db, NOW, { logs: 90, metrics: 365, exports: 7 });
      expect(deleted.exports).toBe(3);
      const { rows: left } = await pg.pool.query<{ id: string }>(
        'select id from logs.log_exports order by id',
      );
      expect(left.map((r) => r.id).sort()).toEqual(ids.slice(3).sort());
      expect(await count(pg, 'select count(*) as n from logs.log_export_chunks')).toBe(3);
    } finally {
      await database.close();
    }
  });

  test('one replica at a time runs a singleton task', async ({ pg }) => {
    const database = await open(pg);
    const log = createLogger({ app: 'test', level: 'silent' });
    let release: () => void = () => undefined;
    const blocked = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    let runs = 0;
    const task = (run: () => Promise<void>) =>
      startSingletonTask({ db: database.db, name: 'test-task', intervalMs: 0, log, run: async () => run() });
    const first = task(async () => {
      runs++;
      started();
      await blocked;
    });
    const second = task(async () => {
      runs++;
    });
    try {
      const firstRun = first.runNow();
      await running;
      expect(await second.runNow()).toBe(false);
      release();
      expect(await firstRun).toBe(true);
      expect(await second.runNow()).toBe(true);
      expect(runs).toBe(2);
    } finally {
      await first.stop();
      await second.stop();
      await database.close();
    }
  });
});

async function count(
  pg: { pool: import('pg').Pool },
  query: string,
  params: unknown[] = [],
): Promise<number> {
  const { rows } = await pg.pool.query<{ n: string }>(query, params);
  return Number(rows[0]?.n ?? 0);
}
