// Ingest pays only for what reads use (docs/logger.md "Ingest cost", docs/decisions.md):
// - the rollups and the usage ledger, which every batch upserts (increments of the same rows), keep
//   free space in each page so that an increment is a HOT update: no new index entries, no bloat
//   until vacuum (applies to pages written from now on);
// - usage_ledger_period goes: reconciliation pages through the ledger in primary-key order and
//   only filters on period_end, and the hourly retention delete alone does not pay for an index
//   every new ledger row must enter.
// The request_logs indexes all serve a query of src/query and stay (measured cost per index in
// docs/performance.md "Logger").
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table request_rollups_hourly set (fillfactor = 70);
    alter table usage_ledger set (fillfactor = 50);
    drop index if exists usage_ledger_period;
  `.execute(db);
}
