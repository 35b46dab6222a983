// Saved gateway configs (`x-service-config: <id or slug>`): workspace-level, versioned on every change
// of the config object, validated by the gateway's own parser, references checked. Organisation
// callers manage every workspace's configs; workspace-bound callers only their own (others are 404).
// Webhook header values of inline guardrails are sealed per version and masked in every response
// (configs.headers.ts); without MASTER_KEY a config that has them is refused (500 AB04).
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { conflict } from '../api-errors.js';
import type { Principal } from '../auth/principal.js';
import { lookupWorkspace, targetWorkspace } from '../auth/visibility.js';
import type { ControlDatabase } from '../db/schema.js';
import { toList } from '../http/list.js';
import { defineRoute, emptyObject, type RouteDefinition } from '../http/route.js';
import { creatorOf } from '../providers/providers.repository.js';
import {
  configSummaryToApi,
  configToApi,
  configVersionSummaryToApi,
  configVersionToApi,
} from './configs.entity.js';
import { configBodyToStore, keepMaskedHeaders } from './configs.headers.js';
import { resolveReferences } from './configs.references.js';
import {
  deleteConfig,
  deploymentsRunning,
  findVersion,
  findVisibleConfig,
  insertConfig,
  listConfigs,
  listVersions,
  updateConfig,
} from './configs.repository.js';
import {
  configListSchema,
  configLookupQuery,
  configParams,
  configSchema,
  configVersionListSchema,
  configVersionParams,
  configVersionSchema,
  createConfigBody,
  listConfigsQuery,
  listVersionsQuery,
  updateConfigBody,
} from './configs.schema.js';
import { configReferences, validateConfig } from './configs.validate.js';

const TAG = 'Configs';

async function visibleConfig(
  db: Kysely<ControlDatabase>,
  principal: Principal,
  configRef: string,
  workspaceRef: string | undefined,
) {
  const workspaceId = await lookupWorkspace(db, principal, workspaceRef);
  return findVisibleConfig(db, principal, configRef, { workspaceId });
}

export const configRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'post',
    path: '/configs',
    tag: TAG,
    summary: 'Create a config',
    scope: 'configs.create',
    level: 'workspace',
    minRole: 'manager',
    body: createConfigBody,
    response: configSchema,
    status: 201,
    audit: { action: 'configs.create', resourceType: 'config' },
    entity: { table: 'configs' },
    async handler({ db, principal, body, mutate, masterKey }) {
      const workspace = await targetWorkspace(db, principal, body.workspace_id, 'body.workspace_id');
      if (workspace.status === 'archived') throw conflict('the workspace is archived', 'body.workspace_id');
      const validated = validateConfig(body.config);
      const stored = configBodyToStore(masterKey, validated.text);
      const id = randomUUID();
      return mutate({ resourceId: id, workspaceId: workspace.id }, async (tx) => {
        const scope = { organisationId: workspace.organisation_id, workspaceId: workspace.id };
        const guardrailIds = await resolveReferences(tx.db, scope, validated.references);
        const row = await insertConfig(
          tx,
          {
            id,
            organisation_id: workspace.organisation_id,
            workspace_id: workspace.id,
            name: body.name,
            slug: body.slug,
            body: stored,
            guardrail_ids: guardrailIds,
          },
          creatorOf(principal),
          masterKey,
        );
        return configToApi(row);
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/configs',
    tag: TAG,
    summary: 'List configs',
    scope: 'configs.list',
    level: 'workspace',
    query: listConfigsQuery,
    response: configListSchema,
    async handler({ db, principal, query }) {
      const workspaceId = await lookupWorkspace(db, principal, query.workspace_id);
      const { rows, total } = await listConfigs(db, principal, {
        page_size: query.page_size,
        current_page: query.current_page,
        status: query.status,
        ...(workspaceId !== undefined ? { workspaceId } : {}),
        ...(query.name !== undefined ? { name: query.name } : {}),
      });
      return toList(rows.map(configSummaryToApi), total);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/configs/:configId',
    tag: TAG,
    summary: 'Get a config',
    scope: 'configs.read',
    level: 'workspace',
    params: configParams,
    query: configLookupQuery,
    response: configSchema,
    entity: { table: 'configs' },
    async handler({ db, principal, params, query }) {
      return configToApi(await visibleConfig(db, principal, params.configId, query.workspace_id));
    },
  }),
  defineRoute({
    method: 'put',
    path: '/configs/:configId',
    tag: TAG,
    summary: 'Update a config',
    scope: 'configs.update',
    level: 'workspace',
    minRole: 'manager',
    params: configParams,
    query: configLookupQuery,
    body: updateConfigBody,
    response: configSchema,
    audit: { action: 'configs.update', resourceType: 'config' },
    entity: { table: 'configs' },
    async handler({ db, principal, params, query, body, mutate, masterKey }) {
      const before = await visibleConfig(db, principal, params.configId, query.workspace_id);
      const validated = body.config === undefined ? undefined : validateConfig(body.config);
      const stored = validated === undefined ? undefined : configBodyToStore(masterKey, validated.text);
      return mutate({ resourceId: before.id, workspaceId: before.workspace_id }, async (tx) => {
        const current = await findVisibleConfig(tx.db, principal, before.id, { forUpdate: true });
        const scope = { organisationId: current.organisation_id, workspaceId: current.workspace_id };
        // A restored config is served again: what it references must still exist.
        const restoring = body.status === 'active' && current.status === 'archived';
        const references =
          validated?.references ?? (restoring ? configReferences(JSON.parse(current.body)) : undefined);
        const guardrailIds =
          references === undefined ? undefined : await resolveReferences(tx.db, scope, references);
        // Header values sent back masked keep the latest version's (read under the row lock), so a
        // config sent back as read is the same body and adds no version.
        const next = stored === undefined ? undefined : keepMaskedHeaders(masterKey, current, stored);
        const row = await updateConfig(
          tx,
          current,
          {
            ...(body.name !== undefined ? { name: body.name } : {}),
            ...(body.status !== undefined ? { status: body.status } : {}),
            ...(next !== undefined ? { body: next } : {}),
            ...(guardrailIds !== undefined ? { guardrail_ids: guardrailIds } : {}),
          },
          creatorOf(principal),
          masterKey,
        );
        return configToApi(row);
      });
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/configs/:configId',
    tag: TAG,
    summary: 'Delete a config',
    scope: 'configs.delete',
    level: 'workspace',
    minRole: 'manager',
    params: configParams,
    query: configLookupQuery,
    response: emptyObject,
    audit: { action: 'configs.delete', resourceType: 'config' },
    entity: { table: 'configs' },
    async handler({ db, principal, params, query, mutate }) {
      const before = await visibleConfig(db, principal, params.configId, query.workspace_id);
      return mutate({ resourceId: before.id, workspaceId: before.workspace_id }, async (tx) => {
        // Locked first: a deployment being created on it (which reads it FOR SHARE) waits or is seen.
        const current = await findVisibleConfig(tx.db, principal, before.id, { forUpdate: true });
        const running = await deploymentsRunning(tx.db, current.id);
        if (running.length > 0) {
          throw conflict(
            `deployments run this config (${running.join(', ')}): point them at another config or delete them first`,
          );
        }
        await deleteConfig(tx, current);
        return {};
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/configs/:configId/versions',
    tag: TAG,
    summary: 'List the versions of a config',
    scope: 'configs.read',
    level: 'workspace',
    params: configParams,
    query: listVersionsQuery,
    response: configVersionListSchema,
    async handler({ db, principal, params, query }) {
      const config = await visibleConfig(db, principal, params.configId, query.workspace_id);
      const { rows, total } = await listVersions(db, config.id, query);
      return toList(rows.map(configVersionSummaryToApi), total);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/configs/:configId/versions/:version',
    tag: TAG,
    summary: 'Get a version of a config',
    scope: 'configs.read',
    level: 'workspace',
    params: configVersionParams,
    query: configLookupQuery,
    response: configVersionSchema,
    async handler({ db, principal, params, query }) {
      const config = await visibleConfig(db, principal, params.configId, query.workspace_id);
      return configVersionToApi(await findVersion(db, config.id, params.version));
    },
  }),
];
