// Applies the platform price table to the database at startup: inserts new rows, updates changed
// ones, deletes (tombstones) rows no longer in the table, each with a change event for gateways.
// Organisation overrides are never read nor written here. Idempotent; safe when replicas race.
import { randomUUID } from 'node:crypto';
import { EntityKind } from '@aigw/proto';
import { type Kysely, sql } from 'kysely';
import { SYSTEM_ACTOR } from '../auth/principal.js';
import type { ControlDatabase } from '../db/schema.js';
import { recordChange } from '../outbox/outbox.js';
import { writeTombstone } from '../tombstones/tombstones.js';
import { type ModelPricingRow, modelPricingEntity } from './model-pricing.entity.js';
import { PLATFORM_SEED, type PriceSeed, type SeedPrice } from './model-pricing.seed.js';

/** Transaction-scoped lock id: one replica applies the table, the others then find nothing to do. */
const SYNC_LOCK = 0x61696777_0010n;

export interface SyncResult {
  readonly asOf: string;
  readonly inserted: number;
  readonly updated: number;
  readonly deleted: number;
  readonly unchanged: number;
}

const keyOf = (aiProvider: string, model: string) => `${aiProvider}\u0000${model}`;

/** jsonb reorders keys, so extras compare as sorted entries. */
const extraKey = (extra: Record<string, number>) => JSON.stringify(Object.entries(extra).sort());

function samePrice(row: ModelPricingRow, price: SeedPrice): boolean {
  return (
    row.currency === price.currency &&
    Number(row.input_micros_per_mtok) === price.input_micros_per_mtok &&
    Number(row.output_micros_per_mtok) === price.output_micros_per_mtok &&
    Number(row.cached_input_micros_per_mtok) === price.cached_input_micros_per_mtok &&
    Number(row.cache_write_micros_per_mtok) === price.cache_write_micros_per_mtok &&
    Number(row.request_micros) === price.request_micros &&
    extraKey(row.extra) === extraKey(price.extra)
  );
}

function columns(price: SeedPrice) {
  return { ...price, extra: JSON.stringify(price.extra) };
}

export async function syncPlatformPricing(
  db: Kysely<ControlDatabase>,
  seed: PriceSeed = PLATFORM_SEED,
): Promise<SyncResult> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${SYNC_LOCK.toString()}::bigint)`.execute(trx);
    const current = await trx
      .selectFrom('model_pricing')
      .selectAll()
      .where('organisation_id', 'is', null)
      .execute();
    const stale = new Map(current.map((row) => [keyOf(row.ai_provider, row.model), row]));
    const fresh: SeedPrice[] = [];
    const changed: ModelPricingRow[] = [];
    let unchanged = 0;
    for (const price of seed.prices) {
      const row = stale.get(keyOf(price.ai_provider, price.model));
      stale.delete(keyOf(price.ai_provider, price.model));
      if (!row) fresh.push(price);
      else if (samePrice(row, price)) unchanged++;
      else {
        changed.push(
          await trx
            .updateTable('model_pricing')
            .set({ ...columns(price), version: sql<number>`version + 1`, updated_at: new Date() })
            .where('id', '=', row.id)
            .returningAll()
            .executeTakeFirstOrThrow(),
        );
      }
    }
    if (fresh.length > 0) {
      const inserted = await trx
        .insertInto('model_pricing')
        .values(fresh.map((price) => ({ id: randomUUID(), organisation_id: null, ...columns(price) })))
        .returningAll()
        .execute();
      changed.push(...inserted);
    }
    for (const row of changed)
      await recordChange(trx, { entity: modelPricingEntity(row), actor: SYSTEM_ACTOR });
    for (const row of stale.values()) {
      await trx.deleteFrom('model_pricing').where('id', '=', row.id).execute();
      const tombstone = await writeTombstone(trx, {
        kind: EntityKind.MODEL_PRICING,
        id: row.id,
        organisationId: null,
        workspaceId: null,
        lastVersion: Number(row.version),
      });
      await recordChange(trx, { entity: tombstone, actor: SYSTEM_ACTOR });
    }
    return {
      asOf: seed.asOf,
      inserted: fresh.length,
      updated: changed.length - fresh.length,
      deleted: stale.size,
      unchanged,
    };
  });
}
