// Deployments (spec 4.5; `x-service-deployment: <slug>` on the gateway): workspace-level, each a
// production or non-production pointer to one of its workspace's saved configs, so the config a
// deployment runs changes without a client change. The workspace is its restriction: only that
// workspace's keys and tokens can use it; other workspaces' callers get 404 here and at the gateway.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { conflict } from '../api-errors.js';
import type { Principal } from '../auth/principal.js';
import { lookupWorkspace, targetWorkspace } from '../auth/visibility.js';
import type { ControlDatabase } from '../db/schema.js';
import { toList } from '../http/list.js';
import { defineRoute, emptyObject, type RouteDefinition } from '../http/route.js';
import { creatorOf } from '../providers/providers.repository.js';
import { deploymentToApi } from './deployments.entity.js';
import {
  deleteDeployment,
  deployableConfig,
  findVisibleDeployment,
  insertDeployment,
  listDeployments,
  updateDeployment,
} from './deployments.repository.js';
import {
  createDeploymentBody,
  deploymentListSchema,
  deploymentLookupQuery,
  deploymentParams,
  deploymentSchema,
  listDeploymentsQuery,
  updateDeploymentBody,
} from './deployments.schema.js';

const TAG = 'Deployments';

async function visibleDeployment(
  db: Kysely<ControlDatabase>,
  principal: Principal,
  ref: string,
  workspaceRef: string | undefined,
) {
  const workspaceId = await lookupWorkspace(db, principal, workspaceRef);
  return findVisibleDeployment(db, principal, ref, { workspaceId });
}

export const deploymentRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'post',
    path: '/deployments',
    tag: TAG,
    summary: 'Create a deployment',
    scope: 'deployments.create',
    level: 'workspace',
    minRole: 'manager',
    body: createDeploymentBody,
    response: deploymentSchema,
    status: 201,
    audit: { action: 'deployments.create', resourceType: 'deployment' },
    entity: { table: 'deployments' },
    async handler({ db, principal, body, mutate }) {
      const workspace = await targetWorkspace(db, principal, body.workspace_id, 'body.workspace_id');
      if (workspace.status === 'archived') throw conflict('the workspace is archived', 'body.workspace_id');
      const id = randomUUID();
      return mutate({ resourceId: id, workspaceId: workspace.id }, async (tx) => {
        const configId = await deployableConfig(tx.db, workspace.id, body.config_id);
        const row = await insertDeployment(
          tx,
          {
            id,
            organisation_id: workspace.organisation_id,
            workspace_id: workspace.id,
            name: body.name,
            slug: body.slug,
            description: body.description ?? null,
            type: body.type,
            config_id: configId,
          },
          creatorOf(principal),
        );
        return deploymentToApi(row);
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/deployments',
    tag: TAG,
    summary: 'List deployments',
    scope: 'deployments.list',
    level: 'workspace',
    query: listDeploymentsQuery,
    response: deploymentListSchema,
    async handler({ db, principal, query }) {
      const workspaceId = await lookupWorkspace(db, principal, query.workspace_id);
      const { rows, total } = await listDeployments(db, principal, {
        page_size: query.page_size,
        current_page: query.current_page,
        status: query.status,
        ...(workspaceId !== undefined ? { workspaceId } : {}),
        ...(query.type !== undefined ? { type: query.type } : {}),
        ...(query.name !== undefined ? { name: query.name } : {}),
      });
      return toList(rows.map(deploymentToApi), total);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/deployments/:deploymentId',
    tag: TAG,
    summary: 'Get a deployment',
    scope: 'deployments.read',
    level: 'workspace',
    params: deploymentParams,
    query: deploymentLookupQuery,
    response: deploymentSchema,
    entity: { table: 'deployments' },
    async handler({ db, principal, params, query }) {
      return deploymentToApi(await visibleDeployment(db, principal, params.deploymentId, query.workspace_id));
    },
  }),
  defineRoute({
    method: 'put',
    path: '/deployments/:deploymentId',
    tag: TAG,
    summary: 'Update a deployment',
    scope: 'deployments.update',
    level: 'workspace',
    minRole: 'manager',
    params: deploymentParams,
    query: deploymentLookupQuery,
    body: updateDeploymentBody,
    response: deploymentSchema,
    audit: { action: 'deployments.update', resourceType: 'deployment' },
    entity: { table: 'deployments' },
    async handler({ db, principal, params, query, body, mutate }) {
      const before = await visibleDeployment(db, principal, params.deploymentId, query.workspace_id);
      return mutate({ resourceId: before.id, workspaceId: before.workspace_id }, async (tx) => {
        const current = await findVisibleDeployment(tx.db, principal, before.id, { forUpdate: true });
        const configId =
          body.config_id === undefined
            ? undefined
            : await deployableConfig(tx.db, current.workspace_id, body.config_id);
        const row = await updateDeployment(tx, current, {
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.description !== undefined ? { description: body.description } : {}),
          ...(body.type !== undefined ? { type: body.type } : {}),
          ...(body.status !== undefined ? { status: body.status } : {}),
          ...(configId !== undefined ? { config_id: configId } : {}),
        });
        return deploymentToApi(row);
      });
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/deployments/:deploymentId',
    tag: TAG,
    summary: 'Delete a deployment',
    scope: 'deployments.delete',
    level: 'workspace',
    minRole: 'manager',
    params: deploymentParams,
    query: deploymentLookupQuery,
    response: emptyObject,
    audit: { action: 'deployments.delete', resourceType: 'deployment' },
    entity: { table: 'deployments' },
    async handler({ db, principal, params, query, mutate }) {
      const before = await visibleDeployment(db, principal, params.deploymentId, query.workspace_id);
      return mutate({ resourceId: before.id, workspaceId: before.workspace_id }, async (tx) => {
        await deleteDeployment(
          tx,
          await findVisibleDeployment(tx.db, principal, before.id, { forUpdate: true }),
        );
        return {};
      });
    },
  }),
];
