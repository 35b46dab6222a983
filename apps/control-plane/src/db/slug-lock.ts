// Slugs of configs and guardrails are claimed under a transaction lock so two creations cannot pick
// the same one (deriving them is http/slug.ts).
import { type Kysely, sql } from 'kysely';

/**
 * Serialises slug writes of one namespace (`guardrails:<organisation>`, `configs:<workspace>`) until
 * the transaction ends, so that checking a slug and inserting it is one step.
 */
export async function lockSlugs<DB>(db: Kysely<DB>, namespace: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${namespace}, 0))`.execute(db);
}
