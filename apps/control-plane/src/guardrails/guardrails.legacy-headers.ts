// Guardrails stored before migration 0018 (and configs before 0019) hold webhook header values in
// plaintext. Migrations never see MASTER_KEY, so the control plane seals those rows when it starts
// with one: each row in its own transaction (body, envelope, masked copy and version change together,
// with the change event gateways need), so no row is ever left half-converted. `sealPendingRows` is
// that loop for any owner of headers; the guardrail rows are sealed here, configs in
// configs/configs.legacy-headers.ts.
import type { Logger } from '@aigw/runtime';
import { type Kysely, sql } from 'kysely';
import { SYSTEM_ACTOR } from '../auth/principal.js';
import { configDb } from '../db/configs.db.js';
import type { ControlDatabase } from '../db/schema.js';
import { recordChange } from '../outbox/outbox.js';
import { definitionOf, guardrailEntity } from './guardrails.entity.js';
import { sealCheckHeaders } from './guardrails.headers.js';

type Db = Kysely<ControlDatabase>;

/** Rows of one owner (`guardrails`, `configs`) that may still hold plaintext header values. */
export interface LegacyHeaderRows {
  readonly owner: string;
  /** The migration that introduced the envelope, for the warning (`0018`). */
  readonly migration: string;
  /** Ids of the rows that still hold plaintext. */
  pending(db: Db): Promise<readonly string[]>;
  /**
   * Seals row `id` in `trx`: re-read under its row lock, skipped (false) when another replica
   * sealed it first; true when sealed (with its change event).
   */
  seal(trx: Db, id: string, masterKey: Buffer): Promise<boolean>;
}

/**
 * Seals the plaintext webhook headers of every pending row; returns how many rows were sealed.
 * Without MASTER_KEY nothing changes (responses mask those values all the same) and a warning says
 * how many rows wait. Safe when several replicas start at once (`seal` re-reads under the lock).
 */
export async function sealPendingRows(
  db: Db,
  masterKey: Buffer | null,
  log: Logger,
  rows: LegacyHeaderRows,
): Promise<number> {
  const pending = await rows.pending(db);
  if (pending.length === 0) return 0;
  if (masterKey === null) {
    log.warn(
      { [rows.owner]: pending.length },
      `MASTER_KEY is not set: ${rows.owner} stored before migration ${rows.migration} keep plaintext webhook headers until a start with MASTER_KEY seals them`,
    );
    return 0;
  }
  let sealed = 0;
  for (const id of pending) {
    if (await db.transaction().execute((trx) => rows.seal(trx, id, masterKey))) sealed += 1;
  }
  log.info({ [rows.owner]: sealed }, `sealed the plaintext webhook headers of ${rows.owner}`);
  return sealed;
}

/** A stored check that still has a header value (a sealed row's checks have `headers: {}`). */
const HAS_PLAINTEXT = sql<boolean>`jsonb_path_exists(definition, '$.checks[*].parameters.headers.keyvalue()')`;

const GUARDRAIL_ROWS: LegacyHeaderRows = {
  owner: 'guardrails',
  migration: '0018',
  async pending(db) {
    const rows = await configDb(db).selectFrom('guardrails').select('id').where(HAS_PLAINTEXT).execute();
    return rows.map((r) => r.id);
  },
  async seal(trx, id, masterKey) {
    const row = await configDb(trx)
      .selectFrom('guardrails')
      .selectAll()
      .where('id', '=', id)
      .where(HAS_PLAINTEXT)
      .forUpdate()
      .executeTakeFirst();
    if (!row) return false;
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
    return true;
  },
};

/** Seals the guardrails stored before migration 0018 (see sealPendingRows). */
export function sealLegacyHeaders(db: Db, masterKey: Buffer | null, log: Logger): Promise<number> {
  return sealPendingRows(db, masterKey, log, GUARDRAIL_ROWS);
}
