// Deployments: `x-service-deployment: <id or slug>` (or a deployment's slug in `x-service-config`,
// where no saved config has it) runs the saved config the deployment points at, within the
// deployment's workspace: a key of another workspace finds none (400 `deployment_not_found`).
import { EntityKind, EntityStatus } from '@aigw/proto';
import { gatewayError } from '../errors.js';
import type { EntityOf, Snapshot } from '../snapshot/index.js';

/** The active deployment of the workspace named by id or slug, or undefined. */
export function findDeployment(
  snapshot: Snapshot,
  workspaceId: string,
  idOrSlug: string,
): EntityOf<'deployment'> | undefined {
  const byId = snapshot.find(EntityKind.DEPLOYMENT, 'deployment', idOrSlug);
  const entity =
    byId?.workspaceId === workspaceId
      ? byId
      : (snapshot.bySlug(EntityKind.DEPLOYMENT, workspaceId, idOrSlug) as EntityOf<'deployment'> | undefined);
  if (entity?.body?.$case !== 'deployment' || entity.body.value.status !== EntityStatus.ACTIVE)
    return undefined;
  return entity;
}

/** The id of the saved config a named deployment runs; throws `deployment_not_found` (400). */
export function deploymentConfigId(
  snapshot: Snapshot,
  workspaceId: string,
  idOrSlug: string,
  param: string,
): string {
  const deployment = findDeployment(snapshot, workspaceId, idOrSlug);
  if (!deployment) {
    throw gatewayError(
      'deployment_not_found',
      `no active deployment "${idOrSlug.slice(0, 128)}" in this workspace`,
      { param },
    );
  }
  return deployment.body.value.configId;
}
