// The usage ledger learns the gateway's exact Redis counters: rows charged from a request event's
// usage_charges keep the key of their cost and of their tokens counter, so reconciliation raises
// exactly those (usage-limit policies, every period kind). Rows derived the old way keep nulls.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table usage_ledger add column cost_counter_key text;
    alter table usage_ledger add column tokens_counter_key text;
  `.execute(db);
}
