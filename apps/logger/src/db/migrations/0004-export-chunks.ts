// Log exports are written in chunks (one per batch of rows) and streamed back in order, so an
// export is never held whole in memory nor rewritten on every append (query side's request).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table log_export_chunks (
      export_id uuid not null references log_exports (id) on delete cascade,
      seq integer not null,
      data bytea not null,
      primary key (export_id, seq)
    );
    alter table log_exports add column total_rows bigint not null default 0;
    alter table log_exports add column size_bytes bigint not null default 0;
  `.execute(db);
}
