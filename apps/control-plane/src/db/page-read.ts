// A list page and its total read in one snapshot: two statements on separate pool connections
// (what Promise.all gives) can see different data, so a page could hold fewer rows than its
// `total` says while rows are being written (seen: alerts arriving from NATS during a list).
import type { Kysely } from 'kysely';
import type { ControlDatabase } from './schema.js';

/** Runs `read` in a read-only REPEATABLE READ transaction: every statement sees the same snapshot. */
export function readInOneSnapshot<T>(
  db: Kysely<ControlDatabase>,
  read: (tx: Kysely<ControlDatabase>) => Promise<T>,
): Promise<T> {
  return db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(read);
}
