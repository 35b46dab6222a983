// Stores request rows idempotently: insert ON CONFLICT DO NOTHING, then rollups and the usage
// ledger for the rows this call actually inserted, all inside the caller's transaction.
import type { Kysely } from 'kysely';
import type { LogsDatabase } from '../db/schema.js';
import { chargeLedger } from '../ledger/usage-ledger.js';
import type { RequestLogRow } from './request-row.js';
import { upsertRollups } from './rollups.js';

/** Rows per INSERT statement: 60 columns each stays far below Postgres's 65535 parameters. */
const MAX_ROWS_PER_INSERT = 500;
/** Body bytes per INSERT statement, so that large captured bodies do not make one huge query. */
const MAX_BYTES_PER_INSERT = 8 * 1024 * 1024;

function rowBytes(row: RequestLogRow): number {
  return (row.request_body?.length ?? 0) + (row.response_body?.length ?? 0) + row.event.length;
}

function* chunks(rows: readonly RequestLogRow[]): Generator<RequestLogRow[]> {
  let chunk: RequestLogRow[] = [];
  let bytes = 0;
  for (const row of rows) {
    const size = rowBytes(row);
    if (chunk.length > 0 && (chunk.length >= MAX_ROWS_PER_INSERT || bytes + size > MAX_BYTES_PER_INSERT)) {
      yield chunk;
      chunk = [];
      bytes = 0;
    }
    chunk.push(row);
    bytes += size;
  }
  if (chunk.length > 0) yield chunk;
}

export interface StoreResult {
  readonly inserted: number;
  readonly duplicates: number;
}

/** Must run inside a transaction: the rollups and ledger must commit with the rows or not at all. */
export async function storeRequestRows(
  trx: Kysely<LogsDatabase>,
  rows: readonly RequestLogRow[],
): Promise<StoreResult> {
  const unique = new Map<string, RequestLogRow>();
  for (const row of rows) if (!unique.has(row.id)) unique.set(row.id, row);
  const inserted: RequestLogRow[] = [];
  // Sorted so that two batches carrying the same events wait on each other instead of deadlocking.
  const sorted = [...unique.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const chunk of chunks(sorted)) {
    const ids = await trx
      .insertInto('request_logs')
      .values(chunk)
      .onConflict((oc) => oc.doNothing())
      .returning('id')
      .execute();
    for (const { id } of ids) {
      const row = unique.get(id);
      if (row) inserted.push(row);
    }
  }
  if (inserted.length > 0) {
    await upsertRollups(trx, inserted);
    await chargeLedger(trx, inserted);
  }
  return { inserted: inserted.length, duplicates: rows.length - inserted.length };
}
