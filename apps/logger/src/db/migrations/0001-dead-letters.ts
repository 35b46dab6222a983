// Poison messages: events that failed max-deliver times are kept here instead of being lost.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('dead_letters')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('stream', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('stream_seq', 'bigint', (c) => c.notNull())
    .addColumn('payload', 'bytea', (c) => c.notNull())
    .addColumn('error', 'text', (c) => c.notNull())
    .addColumn('received_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('dead_letters_stream_seq', ['stream', 'stream_seq'])
    .execute();
}
