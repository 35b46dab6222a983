// The relay's reads and writes of the outbox table: unpublished rows in id order, marking, pruning.
import { type Kysely, sql } from 'kysely';
import type { ControlDatabase } from '../db/schema.js';

/** NOTIFY channel of new rows; Postgres delivers a notification at commit, and never on rollback. */
export const OUTBOX_CHANNEL = 'control_outbox';

export interface OutboxRow {
  readonly id: string;
  readonly subject: string;
  readonly payload: Buffer;
}

/**
 * The oldest unpublished rows. Always re-selected, never "after the last id seen": a lower id can
 * commit after a higher one, and must still go out.
 */
export function selectUnpublished(db: Kysely<ControlDatabase>, limit: number): Promise<OutboxRow[]> {
  return db
    .selectFrom('outbox')
    .select(['id', 'subject', 'payload'])
    .where('published_at', 'is', null)
    .orderBy('id')
    .limit(limit)
    .execute();
}

export async function markPublished(db: Kysely<ControlDatabase>, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('outbox')
    .set({ published_at: sql<Date>`now()` })
    .where('id', 'in', [...ids])
    .where('published_at', 'is', null)
    .execute();
}

const PRUNE_CHUNK = 5_000;

/**
 * Deletes rows published more than `retentionMs` ago, in chunks (short locks), except the row with
 * the highest id: snapshots report `max(outbox.id)` as their revision, which must never go back.
 * Unpublished rows are never deleted. Returns the number of rows deleted.
 */
export async function pruneOutbox(db: Kysely<ControlDatabase>, retentionMs: number): Promise<number> {
  let deleted = 0;
  for (;;) {
    const result = await sql`
      delete from outbox where id in (
        select id from outbox
        where published_at < now() - ${retentionMs} * interval '1 millisecond'
          and id < (select max(id) from outbox)
        order by id
        limit ${PRUNE_CHUNK}
      )
    `.execute(db);
    const count = Number(result.numAffectedRows ?? 0);
    deleted += count;
    if (count < PRUNE_CHUNK) return deleted;
  }
}
