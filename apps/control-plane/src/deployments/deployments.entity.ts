// Deployment rows as the API returns them and as gateways receive them (proto Entity, DEPLOYMENT).
import { DeploymentType, type Entity, EntityKind, EntityStatus } from '@aigw/proto';
import type { Kysely } from 'kysely';
import { type DeploymentRow, deploymentDb } from '../db/deployments.db.js';
import type { ControlDatabase } from '../db/schema.js';

export function deploymentToApi(row: DeploymentRow) {
  return {
    id: row.id,
    object: 'deployment' as const,
    organisation_id: row.organisation_id,
    workspace_id: row.workspace_id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    type: row.type,
    status: row.status,
    config_id: row.config_id,
    created_by_user_id: row.created_by_user_id,
    created_by_api_key_id: row.created_by_api_key_id,
    created_at: row.created_at.toISOString(),
    last_updated_at: row.updated_at.toISOString(),
  };
}

export function deploymentEntity(row: DeploymentRow): Entity {
  return {
    kind: EntityKind.DEPLOYMENT,
    id: row.id,
    version: Number(row.version),
    tombstone: false,
    organisationId: row.organisation_id,
    workspaceId: row.workspace_id,
    updatedAtMs: row.updated_at.getTime(),
    body: {
      $case: 'deployment',
      value: {
        name: row.name,
        slug: row.slug,
        type: row.type === 'production' ? DeploymentType.PRODUCTION : DeploymentType.NON_PRODUCTION,
        configId: row.config_id,
        status: row.status === 'active' ? EntityStatus.ACTIVE : EntityStatus.ARCHIVED,
      },
    },
  };
}

/** Snapshot reader: every deployment, archived ones included. */
export async function readDeploymentEntities(trx: Kysely<ControlDatabase>): Promise<Entity[]> {
  return (await deploymentDb(trx).selectFrom('deployments').selectAll().execute()).map(deploymentEntity);
}
