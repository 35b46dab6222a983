// Daily partitions of request_logs: created ahead (moving any rows of that day out of the default
// partition), and dropped whole once older than the log retention.
import { type Kysely, sql } from 'kysely';
import type { LogsDatabase } from '../db/schema.js';

const DAY_MS = 86_400_000;
const PARTITION = /^request_logs_(\d{4})(\d{2})(\d{2})$/;

export function partitionName(dayStartMs: number): string {
  return `request_logs_${new Date(dayStartMs).toISOString().slice(0, 10).replaceAll('-', '')}`;
}

/** Start of the UTC day of a partition name; undefined for other names. */
export function partitionDay(name: string): number | undefined {
  const match = PARTITION.exec(name);
  if (!match) return undefined;
  return Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
}

export function dayStart(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** Every `request_logs_YYYYMMDD` table of the schema, attached or not (a crash can leave one detached). */
export async function listPartitions(db: Kysely<LogsDatabase>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relkind = 'r' and c.relname ~ '^request_logs_[0-9]{8}$'
    order by c.relname`.execute(db);
  return rows.map((r) => r.name);
}

/** Creates the partition of one day; rows of that day already in the default partition move into it. */
export async function createPartition(db: Kysely<LogsDatabase>, day: number): Promise<void> {
  const name = partitionName(day);
  const from = new Date(day).toISOString();
  const to = new Date(day + DAY_MS).toISOString();
  await db.transaction().execute(async (trx) => {
    await sql`set local lock_timeout = '10s'`.execute(trx);
    // Blocks only inserts routed to the default partition while its rows of that day move.
    await sql`lock table request_logs_default in share row exclusive mode`.execute(trx);
    await sql`create table ${sql.id(name)} (like request_logs including defaults)`.execute(trx);
    await sql`
      with moved as (
        delete from request_logs_default where received_at >= ${from}::timestamptz and received_at < ${to}::timestamptz
        returning *
      )
      insert into ${sql.id(name)} select * from moved`.execute(trx);
    await sql`alter table request_logs attach partition ${sql.id(name)}
      for values from (${sql.lit(from)}) to (${sql.lit(to)})`.execute(trx);
  });
}

/** Partitions from yesterday to `aheadDays` after today; returns the names created. */
export async function ensurePartitions(
  db: Kysely<LogsDatabase>,
  nowMs: number,
  aheadDays: number,
): Promise<string[]> {
  const existing = new Set(await listPartitions(db));
  const created: string[] = [];
  const today = dayStart(nowMs);
  for (let offset = -1; offset <= aheadDays; offset++) {
    const day = today + offset * DAY_MS;
    if (existing.has(partitionName(day))) continue;
    await createPartition(db, day);
    created.push(partitionName(day));
  }
  return created;
}

/**
 * Drops partitions whose whole day is older than `retentionDays`, and deletes such rows from the
 * default partition; returns the names dropped.
 */
export async function dropExpiredPartitions(
  db: Kysely<LogsDatabase>,
  nowMs: number,
  retentionDays: number,
): Promise<string[]> {
  const cutoff = nowMs - retentionDays * DAY_MS;
  const dropped: string[] = [];
  for (const name of await listPartitions(db)) {
    const day = partitionDay(name);
    if (day === undefined || day + DAY_MS > cutoff) continue;
    await db.transaction().execute(async (trx) => {
      // Dropping a partition locks the parent: give up rather than queue ingest behind it.
      await sql`set local lock_timeout = '5s'`.execute(trx);
      await sql`drop table ${sql.id(name)}`.execute(trx);
    });
    dropped.push(name);
  }
  await sql`delete from request_logs_default where received_at < ${new Date(cutoff).toISOString()}::timestamptz`.execute(
    db,
  );
  return dropped;
}
