// Deleted entities: the tombstones table, written by every feature that deletes an entity and read
// by the snapshot. A folder of its own below both, so features and the snapshot readers do not
// import each other (the snapshot reads every feature; features only need to record deletions).
import type { Entity, EntityKind } from '@aigw/proto';
import type { Kysely } from 'kysely';
import type { ControlDatabase } from '../db/schema.js';

/** The tombstones of one entity kind, as snapshot entities. */
export async function readTombstones(trx: Kysely<ControlDatabase>, kind: EntityKind): Promise<Entity[]> {
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
