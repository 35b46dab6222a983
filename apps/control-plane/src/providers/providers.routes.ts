// Providers: workspace instances of an integration, addressed by requests as `@<slug>`. Organisation
// callers manage every workspace's; workspace-bound callers only their own (others are 404).
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { conflict } from '../api-errors.js';
import type { Principal } from '../auth/principal.js';
import { isUuid, lookupWorkspace, targetWorkspace } from '../auth/visibility.js';
import type { ControlDatabase } from '../db/schema.js';
import { toList } from '../http/list.js';
import { defineRoute, emptyObject, type RouteDefinition } from '../http/route.js';
import { usableIntegration } from '../integrations/integrations.repository.js';
import { resetEntityLimitAlerts } from '../policies/policy-alerts.js';
import { changedColumns, limitColumns } from './providers.columns.js';
import { providerToApi, showProviderUsage } from './providers.entity.js';
import {
  creatorOf,
  deleteProvider,
  findVisibleProvider,
  insertProvider,
  listProviders,
  updateProvider,
} from './providers.repository.js';
import {
  createProviderBody,
  listProvidersQuery,
  providerListSchema,
  providerLookupQuery,
  providerParams,
  providerSchema,
  updateProviderBody,
} from './providers.schema.js';

const TAG = 'Providers';

/** The provider a path names (id or slug, spec 5.2), narrowed to `workspace_id` when given. */
async function visibleProvider(
  ctx: { db: Kysely<ControlDatabase>; principal: Principal },
  ref: string,
  workspaceRef: string | undefined,
) {
  const workspaceId = await lookupWorkspace(ctx.db, ctx.principal, workspaceRef);
  return findVisibleProvider(ctx.db, ctx.principal, ref, { workspaceId });
}

export const providerRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'post',
    path: '/providers',
    tag: TAG,
    summary: 'Create a provider',
    scope: 'providers.create',
    level: 'workspace',
    minRole: 'manager',
    body: createProviderBody,
    response: providerSchema,
    status: 201,
    audit: { action: 'providers.create', resourceType: 'provider' },
    entity: { table: 'providers' },
    async handler({ db, principal, body, mutate }) {
      const workspace = await targetWorkspace(db, principal, body.workspace_id, 'body.workspace_id');
      if (workspace.status === 'archived') throw conflict('the workspace is archived', 'body.workspace_id');
      const id = randomUUID();
      return mutate({ resourceId: id, workspaceId: workspace.id }, async (tx) => {
        // Locked so that a concurrent delete or access change cannot slip between check and insert.
        const integration = await usableIntegration(
          tx.db,
          principal,
          workspace.id,
          body.integration_id,
          'body.integration_id',
          { forUpdate: true },
        );
        const row = await insertProvider(
          tx,
          {
            id,
            organisation_id: workspace.organisation_id,
            workspace_id: workspace.id,
            integration_id: integration.id,
            name: body.name ?? integration.name,
            slug: body.slug ?? integration.slug,
            note: body.note ?? '',
            ai_provider: integration.ai_provider,
            ...limitColumns(body),
            tags: JSON.stringify(body.tags ?? {}),
            ...creatorOf(principal),
          },
          'body.slug',
        );
        return providerToApi(row);
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/providers',
    tag: TAG,
    summary: 'List providers',
    scope: 'providers.list',
    level: 'workspace',
    query: listProvidersQuery,
    response: providerListSchema,
    async handler(ctx) {
      const { db, principal, query } = ctx;
      const workspaceId = await lookupWorkspace(db, principal, query.workspace_id);
      let integrationId: string | undefined;
      if (query.integration_id !== undefined) {
        // A slug that names no integration of the organisation matches nothing.
        const found = isUuid(query.integration_id)
          ? { id: query.integration_id.toLowerCase() }
          : await db
              .selectFrom('integrations')
              .select('id')
              .where('organisation_id', '=', principal.organisationId)
              .where('slug', '=', query.integration_id)
              .executeTakeFirst();
        if (!found) return toList([], 0);
        integrationId = found.id;
      }
      const { rows, total } = await listProviders(db, principal, {
        page_size: query.page_size,
        current_page: query.current_page,
        ...(workspaceId !== undefined ? { workspaceId } : {}),
        ...(integrationId !== undefined ? { integrationId } : {}),
        ...(query.ai_provider ? { ai_provider: query.ai_provider } : {}),
        ...(query.status ? { status: query.status } : {}),
        ...(query.tags ? { tags: query.tags } : {}),
      });
      const providers = rows.map(providerToApi);
      await showProviderUsage(ctx, providers);
      return toList(providers, total);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/providers/:providerId',
    tag: TAG,
    summary: 'Get a provider',
    scope: 'providers.read',
    level: 'workspace',
    params: providerParams,
    query: providerLookupQuery,
    response: providerSchema,
    entity: { table: 'providers' },
    async handler(ctx) {
      const provider = providerToApi(
        await visibleProvider(ctx, ctx.params.providerId, ctx.query.workspace_id),
      );
      await showProviderUsage(ctx, [provider]);
      return provider;
    },
  }),
  defineRoute({
    method: 'put',
    path: '/providers/:providerId',
    tag: TAG,
    summary: 'Update a provider',
    scope: 'providers.update',
    level: 'workspace',
    minRole: 'manager',
    params: providerParams,
    query: providerLookupQuery,
    body: updateProviderBody,
    response: providerSchema,
    audit: { action: 'providers.update', resourceType: 'provider' },
    entity: { table: 'providers' },
    async handler(ctx) {
      const { principal, params, body, mutate } = ctx;
      const before = await visibleProvider(ctx, params.providerId, ctx.query.workspace_id);
      const updated = await mutate(
        { resourceId: before.id, workspaceId: before.workspace_id },
        async (tx) => {
          const current = await findVisibleProvider(tx.db, principal, before.id, { forUpdate: true });
          const row = await updateProvider(
            tx,
            current.id,
            {
              ...changedColumns(body),
              ...(body.tags !== undefined ? { tags: JSON.stringify(body.tags) } : {}),
            },
            body.slug ?? current.slug,
          );
          await resetEntityLimitAlerts(
            tx.db,
            { kind: 'provider', id: row.id },
            current.usage_limits,
            row.usage_limits,
          );
          return providerToApi(row);
        },
      );
      await showProviderUsage(ctx, [updated]);
      return updated;
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/providers/:providerId',
    tag: TAG,
    summary: 'Delete a provider',
    scope: 'providers.delete',
    level: 'workspace',
    minRole: 'manager',
    params: providerParams,
    query: providerLookupQuery,
    response: emptyObject,
    audit: { action: 'providers.delete', resourceType: 'provider' },
    entity: { table: 'providers' },
    async handler(ctx) {
      const { principal, params, mutate } = ctx;
      const before = await visibleProvider(ctx, params.providerId, ctx.query.workspace_id);
      return mutate({ resourceId: before.id, workspaceId: before.workspace_id }, async (tx) => {
        await deleteProvider(tx, await findVisibleProvider(tx.db, principal, before.id, { forUpdate: true }));
        return {};
      });
    },
  }),
];
