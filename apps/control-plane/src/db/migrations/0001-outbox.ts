// The outbox: every change is written here in the same transaction as the entity it describes,
// then relayed to NATS in id order (ARCHITECTURE part 3).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('outbox')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('payload', 'bytea', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('published_at', 'timestamptz')
    .execute();
  await db.schema
    .createIndex('outbox_unpublished')
    .on('outbox')
    .column('id')
    .where(sql.ref('published_at'), 'is', null)
    .execute();
}
