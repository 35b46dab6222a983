// Guardrails stored before migration 0018 hold webhook header values in plaintext inside their
// definition. Migrations never see MASTER_KEY, so the control plane seals those rows when it starts
// with one: each row in its own transaction (definition, envelope, masked copy and version change
// together, with the change event gateways need), so no row is ever left half-converted.
import type { Logger } from '@aigw/runtime';
import { type Kysely, sql } from 'kysely';
import { SYSTEM_ACTOR } from '../auth/principal.js';
import { configDb } from '../db/configs.db.js';
import type { ControlDatabase } from '../db/schema.js';
import { recordChange } from '../outbox/outbox.js';
import { definitionOf, guardrailEntity } from './guardrails.entity.js';
import { sealCheckHeaders } from './guardrails.headers.js';

/** A stored check that still has a header value (a sealed row's checks have `headers: {}`). */
const HAS_PLAINTEXT = sql<boolean>`jsonb_path_exists(definition, '$.checks[*].parameters.headers.keyvalue()')`;

/**
 * Seals the plaintext webhook headers of every guardrail that still has them; returns how many rows
 * were sealed. Without MASTER_KEY nothing changes (responses mask those values all the same) and a
 * warning says how many rows wait. Safe when several replicas start at once: each row is re-read
 * under its row lock and skipped when another replica sealed it first.
 */
export async function sealLegacyHeaders(
  db: Kysely<ControlDatabase>,
  masterKey: Buffer | null,
  log: Logger,
): Promise<number> {
  const pending = await configDb(db).selectFrom('guardrails').select('id').where(HAS_PLAINTEXT).execute();
  if (pending.length === 0) return 0;
  if (masterKey === null) {
    log.warn(
      { guardrails: pending.length },
      'MASTER_KEY is not set: guardrails stored before migration 0018 keep plaintext webhook headers until a start with MASTER_KEY seals them',
    );
    return 0;
  }
  let sealed = 0;
  for (const { id } of pending) {
    await db.transaction().execute(async (trx) => {
      const row = await configDb(trx)
        .selectFrom('guardrails')
        .selectAll()
        .where('id', '=', id)
        .where(HAS_PLAINTEXT)
        .forUpdate()
        .executeTakeFirst();
      if (!row) return;
      const definition = definitionOf(row);
      // A row with plaintext never had an envelope (every write since 0018 seals), so this one is whole.
      const { checks, columns } = sealCheckHeaders(masterKey, row.id, definition.checks);
      const updated = await configDb(trx)
        .updateTable('guardrails')
        .set({
          definition: JSON.stringify({ ...definition, checks }),
          ...columns,
          version: sql<number>`version + 1`,
          updated_at: new Date(),
        })
        .where('id', '=', row.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await recordChange(trx, { entity: guardrailEntity(updated), actor: SYSTEM_ACTOR });
      sealed += 1;
    });
  }
  log.info({ guardrails: sealed }, 'sealed the plaintext webhook headers of guardrails');
  return sealed;
}
