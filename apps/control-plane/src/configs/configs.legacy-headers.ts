// Configs stored before migration 0019 hold the webhook header values of their inline guardrails in
// plaintext, in the config row and in their version rows. The control plane's next start with
// MASTER_KEY seals them (guardrails.legacy-headers.ts's loop, one config per transaction): every
// version row with its own envelope (AAD of its config version), then the config row as a copy of
// its latest version, with version + 1 and the change event gateways need.
import type { Logger } from '@aigw/runtime';
import { type Kysely, sql } from 'kysely';
import { SYSTEM_ACTOR } from '../auth/principal.js';
import { configDb } from '../db/configs.db.js';
import type { ControlDatabase } from '../db/schema.js';
import { type LegacyHeaderRows, sealPendingRows } from '../guardrails/guardrails.legacy-headers.js';
import { recordChange } from '../outbox/outbox.js';
import { configEntity } from './configs.entity.js';
import { sealConfigHeaders, splitConfigHeaders } from './configs.headers.js';

/** A body with a check that still has a header value (sealed bodies have `headers: {}`). */
const HAS_PLAINTEXT = sql<boolean>`jsonb_path_exists(body::jsonb, 'lax $.**.checks[*].parameters.headers.keyvalue()')`;

const CONFIG_ROWS: LegacyHeaderRows = {
  owner: 'configs',
  migration: '0019',
  async pending(db) {
    const rows = await configDb(db)
      .selectFrom('configs')
      .select('id')
      .where((eb) =>
        eb.or([
          HAS_PLAINTEXT,
          // `body` in here is the version's (the inner table comes first).
          eb.exists(
            eb
              .selectFrom('config_versions')
              .select('version')
              .whereRef('config_versions.config_id', '=', 'configs.id')
              .where(HAS_PLAINTEXT),
          ),
        ]),
      )
      .execute();
    return rows.map((r) => r.id);
  },
  async seal(trx, id, masterKey) {
    const db = configDb(trx);
    const config = await db
      .selectFrom('configs')
      .selectAll()
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
    if (!config) return false;
    const versions = await db
      .selectFrom('config_versions')
      .select(['version', 'body'])
      .where('config_id', '=', id)
      .where(HAS_PLAINTEXT)
      .execute();
    let sealed = false;
    // A body with plaintext never had an envelope (every write since 0019 seals), so each is whole.
    for (const version of versions) {
      const split = splitConfigHeaders(version.body);
      if (Object.keys(split.headers).length === 0) continue;
      await db
        .updateTable('config_versions')
        .set({ body: split.text, ...sealConfigHeaders(masterKey, id, version.version, split.headers) })
        .where('config_id', '=', id)
        .where('version', '=', version.version)
        .execute();
      sealed = true;
    }
    const current = splitConfigHeaders(config.body);
    if (Object.keys(current.headers).length > 0) {
      const updated = await db
        .updateTable('configs')
        .set({
          body: current.text,
          ...sealConfigHeaders(masterKey, id, config.config_version, current.headers),
          version: sql<number>`version + 1`,
          updated_at: new Date(),
        })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await recordChange(trx, { entity: configEntity(updated), actor: SYSTEM_ACTOR });
      sealed = true;
    }
    return sealed;
  },
};

/** Seals the configs stored before migration 0019 (see sealPendingRows). */
export function sealLegacyConfigHeaders(
  db: Kysely<ControlDatabase>,
  masterKey: Buffer | null,
  log: Logger,
): Promise<number> {
  return sealPendingRows(db, masterKey, log, CONFIG_ROWS);
}
