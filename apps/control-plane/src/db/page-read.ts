// A list page and its total read in one snapshot: two statements on separate pool connections
// (what Promise.all gives), or even one after the other outside a transaction, can see different
// data, so a page could hold fewer rows than its `total` says while rows are being written (seen:
// alerts arriving from NATS during a list). Every admin list reads through `readPage`.
import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';

/** Runs `read` in a read-only REPEATABLE READ transaction: every statement sees the same snapshot. */
export function readInOneSnapshot<DB, T>(db: Kysely<DB>, read: (tx: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(read);
}

export interface PageRead<R> {
  readonly rows: R[];
  /** Rows `filtered` matches in the snapshot the page was read from. */
  readonly total: number;
}

/**
 * One page of a list and the number of rows its filter matches, from one snapshot.
 *
 * `filtered` is the list's from/join/where, without selections, order or bounds; `page` adds those
 * (`q.selectAll().orderBy(…).limit(…).offset(…)`). The count is derived from the same `filtered`, so
 * the total can never use another filter than the page. `filtered` is built on `db` (or a typed view
 * of it such as `db.withTables()`), not on the transaction: Kysely runs a built query on the
 * transaction's connection through `executeQuery`, so callers need not rebuild their filter there.
 */
export function readPage<DB, QDB, TB extends keyof QDB, O, R>(
  db: Kysely<DB>,
  filtered: SelectQueryBuilder<QDB, TB, O>,
  page: (filtered: SelectQueryBuilder<QDB, TB, O>) => SelectQueryBuilder<QDB, TB, R>,
): Promise<PageRead<R>> {
  const rowsQuery = page(filtered);
  const countQuery = filtered
    .clearSelect()
    .select(sql<string>`count(*)`.as('total'))
    .$castTo<{ total: string }>();
  return readInOneSnapshot(db, async (tx) => {
    // One after the other: a transaction is one connection, which runs one statement at a time.
    const { rows } = await tx.executeQuery(rowsQuery);
    const counted = await tx.executeQuery(countQuery);
    return { rows, total: Number(counted.rows[0]?.total ?? 0) };
  });
}
