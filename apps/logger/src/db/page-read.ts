// A list page and its total read in one snapshot: the page and the count as two statements on the
// pool (separate connections, or one after the other outside a transaction) can see different
// rows, so a page could disagree with its `total` while logs are being ingested. The control plane
// has its own copy of this rule (apps never import apps).
import type { Kysely, RawBuilder } from 'kysely';
import type { LogsDatabase } from './schema.js';

/** Runs `read` in a read-only REPEATABLE READ transaction: every statement sees the same snapshot. */
export function readInOneSnapshot<T>(
  db: Kysely<LogsDatabase>,
  read: (tx: Kysely<LogsDatabase>) => Promise<T>,
): Promise<T> {
  return db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(read);
}

/**
 * The page's rows and, when `count` is given (include_total), the count's `n` from the same
 * snapshot. Without a count the page is one statement and needs no transaction.
 */
export async function readPageAndTotal<R>(
  db: Kysely<LogsDatabase>,
  page: RawBuilder<R>,
  count: RawBuilder<{ n: string }> | undefined,
): Promise<{ rows: R[]; total?: number }> {
  if (count === undefined) return { rows: (await page.execute(db)).rows };
  return readInOneSnapshot(db, async (tx) => {
    const { rows } = await page.execute(tx);
    const counted = await count.execute(tx);
    return { rows, total: Number(counted.rows[0]?.n ?? 0) };
  });
}
