// What a snapshot contains: one reader per entity kind, each returning live rows and tombstones.
import { type Entity, EntityKind } from '@aigw/proto';
import type { Kysely } from 'kysely';
import { apiKeyEntity } from '../api-keys/api-keys.entity.js';
import { readConfigEntities } from '../configs/configs.entity.js';
import type { ControlDatabase } from '../db/schema.js';
import { readGuardrailEntities } from '../guardrails/guardrails.entity.js';
import { readIntegrationEntities } from '../integrations/integrations.entity.js';
import { readModelPricingEntities } from '../model-pricing/model-pricing.entity.js';
import { organisationEntity } from '../organisations/organisations.entity.js';
import { readRateLimitsPolicies, readUsageLimitsPolicies } from '../policies/policies.snapshot.js';
import { readProviderEntities } from '../providers/providers.entity.js';
import { readVirtualKeyEntities } from '../virtual-keys/virtual-keys.entity.js';
import { workspaceEntity } from '../workspaces/workspaces.entity.js';
import type { EntityReader } from './snapshot.repository.js';

async function tombstones(trx: Kysely<ControlDatabase>, kind: EntityKind): Promise<Entity[]> {
  const rows = await trx.selectFrom('tombstones').selectAll().where('kind', '=', kind).execute();
  return rows.map((row) => ({
    kind,
    id: row.id,
    version: Number(row.version),
    tombstone: true,
    organisationId: row.organisation_id ?? '',
    workspaceId: row.workspace_id ?? '',
    updatedAtMs: row.deleted_at.getTime(),
  }));
}

function reader(
  kind: EntityKind,
  live: (trx: Kysely<ControlDatabase>) => Promise<Entity[]>,
): [EntityKind, EntityReader] {
  return [kind, async (trx) => [...(await live(trx)), ...(await tombstones(trx, kind))]];
}

export const snapshotReaders: ReadonlyMap<EntityKind, EntityReader> = new Map([
  reader(EntityKind.ORGANISATION, async (trx) =>
    (await trx.selectFrom('organisations').selectAll().execute()).map(organisationEntity),
  ),
  reader(EntityKind.WORKSPACE, async (trx) =>
    (await trx.selectFrom('workspaces').selectAll().execute()).map(workspaceEntity),
  ),
  reader(EntityKind.API_KEY, async (trx) =>
    (await trx.selectFrom('api_keys').selectAll().execute()).map(apiKeyEntity),
  ),
  reader(EntityKind.INTEGRATION, readIntegrationEntities),
  reader(EntityKind.PROVIDER, readProviderEntities),
  reader(EntityKind.VIRTUAL_KEY, readVirtualKeyEntities),
  reader(EntityKind.MODEL_PRICING, readModelPricingEntities),
  reader(EntityKind.CONFIG, readConfigEntities),
  reader(EntityKind.GUARDRAIL, readGuardrailEntities),
  reader(EntityKind.RATE_LIMIT_POLICY, readRateLimitsPolicies),
  reader(EntityKind.USAGE_LIMIT_POLICY, readUsageLimitsPolicies),
]);

/** Records a deletion: the tombstone row (for snapshots) carries the version after the last write. */
export async function writeTombstone(
  trx: Kysely<ControlDatabase>,
  entity: {
    kind: EntityKind;
    id: string;
    organisationId: string | null;
    workspaceId: string | null;
    lastVersion: number;
  },
): Promise<Entity> {
  const version = entity.lastVersion + 1;
  const row = await trx
    .insertInto('tombstones')
    .values({
      kind: entity.kind,
      id: entity.id,
      organisation_id: entity.organisationId,
      workspace_id: entity.workspaceId,
      version,
    })
    .onConflict((oc) => oc.columns(['kind', 'id']).doUpdateSet({ version, deleted_at: new Date() }))
    .returningAll()
    .executeTakeFirstOrThrow();
  return {
    kind: entity.kind,
    id: entity.id,
    version,
    tombstone: true,
    organisationId: entity.organisationId ?? '',
    workspaceId: entity.workspaceId ?? '',
    updatedAtMs: row.deleted_at.getTime(),
  };
}
