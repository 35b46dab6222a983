// Runs queued log exports in the background: claims one at a time (SKIP LOCKED, so replicas share the
// queue), writes the matching rows as chunks with progress, and marks it succeeded or failed. A
// running export whose heartbeat (updated_at) went stale was abandoned by a dead replica: restarted.
import type { Logger } from '@aigw/runtime';
import { type Kysely, sql } from 'kysely';
import type { LogsDatabase } from '../../db/schema.js';
import { scopeConditions } from '../caller-scope.js';
import { decodeCursor } from '../cursor.js';
import { normaliseFilter, rawConditions } from '../log-filter.js';
import { all } from '../sql-parts.js';
import { csvRecord, csvRow, jsonLine } from './export-fields.js';
import { type ExportRow, storedRequest } from './exports.store.js';

export interface ExportRunnerOptions {
  readonly db: Kysely<LogsDatabase>;
  readonly log: Logger;
  /** Rows per chunk (and per progress update). */
  readonly batchRows?: number;
  /** An export matching more rows fails at once with a message to narrow the filter. */
  readonly maxRows: number;
  /** How often the queue is polled when nothing woke the runner. */
  readonly pollMs?: number;
  /** A running export not updated for this long is taken over. */
  readonly staleMs?: number;
}

export interface ExportRunner {
  start(): void;
  /** Something was queued: look now. */
  wake(): void;
  /** Resolves once the runner is idle (tests). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

export function createExportRunner(options: ExportRunnerOptions): ExportRunner {
  const db = options.db;
  const batchRows = options.batchRows ?? 1000;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  const drain = async () => {
    do {
      again = false;
      for (
        let row = await claim(db, options.staleMs ?? 120_000);
        row && !stopped;
        row = await claim(db, options.staleMs ?? 120_000)
      ) {
        await runOne(db, row, batchRows, options.maxRows, () => stopped).catch(async (err: unknown) => {
          options.log.error({ err, exportId: row?.id }, 'log export failed');
          await db
            .updateTable('log_exports')
            .set({
              status: 'failed',
              error: 'the export failed; see the logger log',
              completed_at: new Date(),
              updated_at: new Date(),
            })
            .where('id', '=', row!.id)
            .execute()
            .catch(() => undefined);
        });
      }
    } while (again && !stopped);
  };
  const wake = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = drain()
      .catch((err: unknown) => options.log.error({ err }, 'log export queue unavailable'))
      .finally(() => {
        running = undefined;
      });
  };
  return {
    start() {
      timer = setInterval(wake, options.pollMs ?? 5000);
      timer.unref();
      wake();
    },
    wake,
    async idle() {
      while (running) await running;
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await running;
    },
  };
}

async function claim(db: Kysely<LogsDatabase>, staleMs: number): Promise<ExportRow | undefined> {
  const { rows } = await sql<ExportRow>`
    update log_exports set status = 'running', started_at = now(), updated_at = now(), row_count = 0, progress = 0
    where id = (
      select id from log_exports
      where status = 'pending' or (status = 'running' and updated_at < now() - ${`${staleMs} milliseconds`}::interval)
      order by created_at for update skip locked limit 1)
    returning *`.execute(db);
  return rows[0];
}

async function runOne(
  db: Kysely<LogsDatabase>,
  row: ExportRow,
  batchRows: number,
  maxRows: number,
  stopped: () => boolean,
): Promise<void> {
  const stored = storedRequest(row);
  const scope = scopeConditions(stored.caller, 'r');
  const where = scope ? all([...scope, ...rawConditions(normaliseFilter(stored.filter), 'r')]) : sql`false`;
  await db.deleteFrom('log_export_chunks').where('export_id', '=', row.id).execute();
  const { rows: count } = await sql<{
    n: string;
  }>`select count(*)::bigint as n from request_logs r where ${where}`.execute(db);
  const total = Number(count[0]?.n ?? 0);
  if (total > maxRows) {
    await db
      .updateTable('log_exports')
      .set({
        status: 'failed',
        total_rows: total,
        error: `${total} logs match; an export holds at most ${maxRows}: narrow the filter`,
        completed_at: new Date(),
        updated_at: new Date(),
      })
      .where('id', '=', row.id)
      .execute();
    return;
  }
  await db
    .updateTable('log_exports')
    .set({ total_rows: total, updated_at: new Date() })
    .where('id', '=', row.id)
    .execute();
  let seq = 0;
  let size = 0;
  let done = 0;
  const write = async (text: string) => {
    const data = Buffer.from(text, 'utf8');
    await db.insertInto('log_export_chunks').values({ export_id: row.id, seq: seq++, data }).execute();
    size += data.length;
  };
  if (row.format === 'csv') await write(csvRecord(row.fields));
  let cursor = decodeCursor('');
  for (;;) {
    if (stopped()) return; // left running: the next runner takes it over once stale
    const after = cursor
      ? sql`(r.received_at, r.id) < (${new Date(cursor.atMs)}, ${cursor.id}::uuid)`
      : sql`true`;
    const { rows } = await sql<
      Parameters<typeof jsonLine>[0]
    >`select r.* from request_logs r where ${where} and ${after}
      order by r.received_at desc, r.id desc limit ${batchRows}`.execute(db);
    if (rows.length === 0) break;
    const render = row.format === 'csv' ? csvRow : jsonLine;
    await write(rows.map((r) => render(r, row.fields)).join(''));
    done += rows.length;
    const last = rows[rows.length - 1]!;
    cursor = { atMs: last.received_at.getTime(), id: last.id };
    await db
      .updateTable('log_exports')
      .set({ row_count: done, progress: total === 0 ? 1 : Math.min(1, done / total), updated_at: new Date() })
      .where('id', '=', row.id)
      .execute();
    if (rows.length < batchRows) break;
  }
  await db
    .updateTable('log_exports')
    .set({
      status: 'succeeded',
      row_count: done,
      progress: 1,
      size_bytes: size,
      completed_at: new Date(),
      updated_at: new Date(),
    })
    .where('id', '=', row.id)
    .execute();
}
