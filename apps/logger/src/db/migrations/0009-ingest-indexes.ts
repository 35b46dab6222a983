// Ingest pays only for what reads use (docs/logger.md "Ingest cost"): the rollups and the usage
// ledger, which every batch upserts (increments of the same rows), keep free space in each page so
// an increment is a HOT update (no new index entries, no bloat until vacuum).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table request_rollups_hourly set (fillfactor = 70);
    alter table usage_ledger set (fillfactor = 50);
  `.execute(db);
}
