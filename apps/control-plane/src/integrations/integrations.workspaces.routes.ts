// Which workspaces may use an integration, with each one's own limits: read, and bulk update (which
// may also create the default provider in newly enabled workspaces).
import { sql } from 'kysely';
import { toList } from '../http/list.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { resetEntityLimitAlerts } from '../policies/policy-alerts.js';
import { fillCurrentUsage } from '../usage/current-usage.js';
import type { IntegrationProviders } from './integration-providers.js';
import {
  integrationEntity,
  integrationWorkspaceToApi,
  integrationWorkspaceUsage,
} from './integrations.entity.js';
import { findIntegration, mergeEntries, resolveEntries } from './integrations.repository.js';
import {
  integrationParams,
  integrationWorkspaceListSchema,
  updateWorkspacesBody,
} from './integrations.schema.js';
import { assertMappingsAllowed } from './secret-mappings.js';

const TAG = 'Integrations';

export const integrationWorkspaceRoutes = (providers: IntegrationProviders): RouteDefinition[] => [
  defineRoute({
    method: 'get',
    path: '/integrations/:integrationId/workspaces',
    tag: TAG,
    summary: 'List the workspaces of an integration',
    scope: 'integrations.read',
    level: 'organisation',
    params: integrationParams,
    response: integrationWorkspaceListSchema,
    async handler(ctx) {
      const row = await findIntegration(ctx.db, ctx.principal, ctx.params.integrationId);
      const entries = row.workspaces.map(integrationWorkspaceToApi);
      await fillCurrentUsage(
        ctx,
        entries.map((entry) => integrationWorkspaceUsage(row.id, entry)),
      );
      return toList(entries, entries.length);
    },
  }),
  defineRoute({
    method: 'put',
    path: '/integrations/:integrationId/workspaces',
    tag: TAG,
    summary: 'Update the workspaces of an integration',
    scope: 'integrations.update',
    level: 'organisation',
    minRole: 'admin',
    params: integrationParams,
    body: updateWorkspacesBody,
    response: integrationWorkspaceListSchema,
    audit: { action: 'integrations.workspaces.update', resourceType: 'integration' },
    entity: {
      exempt: 'it writes a part of the integration and answers that part, not the versioned integration',
    },
    async handler(ctx) {
      const { db, principal, params, body, mutate } = ctx;
      const before = await findIntegration(db, principal, params.integrationId);
      const updates = await resolveEntries(db, principal, body.workspaces, 'body.workspaces');
      const shown = await mutate({ resourceId: before.id, workspaceId: null }, async (tx) => {
        const current = await findIntegration(tx.db, principal, before.id, { forUpdate: true });
        const entries = mergeEntries(current.workspaces, updates);
        const row = await tx.db
          .updateTable('integrations')
          .set({
            workspaces: JSON.stringify(entries),
            ...(body.allow_all_workspaces !== undefined
              ? { allow_all_workspaces: body.allow_all_workspaces }
              : {}),
            version: sql<number>`version + 1`,
            updated_at: new Date(),
          })
          .where('id', '=', current.id)
          .returningAll()
          .executeTakeFirstOrThrow();
        // A secret reference the integration maps must allow every workspace it now reaches.
        await assertMappingsAllowed(tx.db, row.organisation_id, row, row.secret_mappings, 'body.workspaces');
        for (const entry of entries) {
          const previous = current.workspaces.find((e) => e.workspace_id === entry.workspace_id);
          const subject = { kind: 'integration', id: row.id } as const;
          await resetEntityLimitAlerts(
            tx.db,
            subject,
            previous?.usage_limits,
            entry.usage_limits,
            entry.workspace_id,
          );
        }
        await tx.change(integrationEntity(row));
        if (body.create_default_provider !== false) {
          const named = new Set(updates.map((u) => u.workspace_id));
          const enabled = entries
            .filter((e) => e.enabled && named.has(e.workspace_id))
            .map((e) => e.workspace_id);
          const slug = body.default_provider_slug ?? row.slug;
          await providers.createDefaults(tx, principal, row, enabled, slug, 'body.default_provider_slug');
        }
        return entries.map(integrationWorkspaceToApi);
      });
      await fillCurrentUsage(
        ctx,
        shown.map((entry) => integrationWorkspaceUsage(before.id, entry)),
      );
      return toList(shown, shown.length);
    },
  }),
];
