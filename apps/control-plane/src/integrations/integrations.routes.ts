// Integrations: organisation-level provider credentials (organisation-level callers only). Credentials
// are sealed before the transaction opens and are never returned, logged or audited in clear.
import { randomUUID } from 'node:crypto';
import { EntityKind } from '@aigw/proto';
import { sql } from 'kysely';
import { conflict } from '../api-errors.js';
import { lookupWorkspace } from '../auth/visibility.js';
import { toList } from '../http/list.js';
import { defineRoute, emptyObject, type RouteDefinition } from '../http/route.js';
import { resetEntityLimitAlerts } from '../policies/policy-alerts.js';
import { writeTombstone } from '../tombstones/tombstones.js';
import { fillCurrentUsage } from '../usage/current-usage.js';
import { credentialColumns } from './credentials.seal.js';
import { credentialsSentBack, sameCredentials } from './credentials.sent-back.js';
import type { IntegrationProviders } from './integration-providers.js';
import {
  type IntegrationRow,
  integrationEntity,
  integrationToApi,
  integrationUsage,
} from './integrations.entity.js';
import {
  findIntegration,
  listIntegrations,
  mergeEntries,
  resolveEntries,
} from './integrations.repository.js';
import {
  createIntegrationBody,
  integrationListSchema,
  integrationParams,
  integrationSchema,
  listIntegrationsQuery,
  slugFromName,
  updateIntegrationBody,
} from './integrations.schema.js';
import { integrationWorkspaceRoutes } from './integrations.workspaces.routes.js';
import { parseOptions } from './options.js';
import type { AiProvider } from './provider-types.js';
import { INTEGRATION_SECRETS } from './secret-owners.js';
import { createdSecretColumns, updatedSecretColumns } from './secret-write-columns.js';

const TAG = 'Integrations';

function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: unknown }).code === '23505';
}

function slugTaken(slug: string) {
  return conflict(`an integration with slug "${slug}" already exists in the organisation`, 'body.slug');
}

/** The integration routes; `providers` is how they create and delete the integration's providers. */
export const integrationRoutes = (providers: IntegrationProviders): RouteDefinition[] => [
  defineRoute({
    method: 'post',
    path: '/integrations',
    tag: TAG,
    summary: 'Create an integration',
    scope: 'integrations.create',
    level: 'organisation',
    minRole: 'admin',
    body: createIntegrationBody,
    response: integrationSchema,
    status: 201,
    audit: { action: 'integrations.create', resourceType: 'integration' },
    entity: { table: 'integrations' },
    async handler({ db, principal, body, mutate, secrets }) {
      const id = randomUUID();
      const type = body.ai_provider;
      const options = parseOptions(type, body.options ?? {}, 'body.options');
      const entries = mergeEntries(
        [],
        await resolveEntries(db, principal, body.workspaces ?? [], 'body.workspaces'),
      );
      // Mapped fields are read from their managers now (a reference that does not resolve is a 400).
      const reach = { allow_all_workspaces: body.allow_all_workspaces ?? false, workspaces: entries };
      const { credentials, columns: secretColumns } = await createdSecretColumns(
        db,
        secrets,
        { type, owner: 'integration', id, organisationId: principal.organisationId },
        reach,
        { secret_mappings: body.secret_mappings, credentials: body.credentials ?? null },
        'body.credentials',
      );
      const slug = body.slug ?? slugFromName(body.name, 'integration');
      return mutate({ resourceId: id, workspaceId: null }, async (tx) => {
        let row: IntegrationRow;
        try {
          row = await tx.db
            .insertInto('integrations')
            .values({
              id,
              organisation_id: principal.organisationId,
              name: body.name,
              slug,
              description: body.description ?? '',
              ai_provider: type,
              ...credentials,
              options: JSON.stringify(options),
              allow_all_workspaces: body.allow_all_workspaces ?? false,
              workspaces: JSON.stringify(entries),
              allowed_models: body.allowed_models ?? [],
              rate_limits: JSON.stringify(body.rate_limits ?? []),
              usage_limits: JSON.stringify(body.usage_limits ?? []),
              tags: JSON.stringify(body.tags ?? {}),
              ...secretColumns,
            })
            .returningAll()
            .executeTakeFirstOrThrow();
        } catch (err) {
          if (isUniqueViolation(err)) throw slugTaken(slug);
          throw err;
        }
        await tx.change(integrationEntity(row));
        if (body.create_default_provider !== false) {
          const enabled = entries.filter((e) => e.enabled).map((e) => e.workspace_id);
          const providerSlug = body.default_provider_slug ?? row.slug;
          await providers.createDefaults(
            tx,
            principal,
            row,
            enabled,
            providerSlug,
            'body.default_provider_slug',
          );
        }
        return integrationToApi(row);
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/integrations',
    tag: TAG,
    summary: 'List integrations',
    scope: 'integrations.list',
    level: 'organisation',
    query: listIntegrationsQuery,
    response: integrationListSchema,
    async handler(ctx) {
      const { db, principal, query } = ctx;
      const workspaceId = await lookupWorkspace(db, principal, query.workspace_id);
      const { rows, total } = await listIntegrations(db, principal, query, workspaceId);
      const integrations = rows.map(integrationToApi);
      await fillCurrentUsage(ctx, integrations.flatMap(integrationUsage));
      return toList(integrations, total);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/integrations/:integrationId',
    tag: TAG,
    summary: 'Get an integration',
    scope: 'integrations.read',
    level: 'organisation',
    params: integrationParams,
    response: integrationSchema,
    entity: { table: 'integrations' },
    async handler(ctx) {
      const integration = integrationToApi(
        await findIntegration(ctx.db, ctx.principal, ctx.params.integrationId),
      );
      await fillCurrentUsage(ctx, integrationUsage(integration));
      return integration;
    },
  }),
  defineRoute({
    method: 'put',
    path: '/integrations/:integrationId',
    tag: TAG,
    summary: 'Update an integration',
    scope: 'integrations.update',
    level: 'organisation',
    minRole: 'admin',
    params: integrationParams,
    body: updateIntegrationBody,
    response: integrationSchema,
    audit: { action: 'integrations.update', resourceType: 'integration' },
    entity: { table: 'integrations' },
    async handler(ctx) {
      const { db, principal, params, body, mutate, masterKey, secrets } = ctx;
      const before = await findIntegration(db, principal, params.integrationId);
      const type = before.ai_provider as AiProvider;
      const target = { type, owner: 'integration' as const, id: before.id, masterKey };
      const options =
        body.options === undefined ? undefined : parseOptions(type, body.options, 'body.options');
      const reach = {
        allow_all_workspaces: body.allow_all_workspaces ?? before.allow_all_workspaces,
        workspaces: before.workspaces,
      };
      // Masked values sent back keep what is stored at their field (credentials.sent-back.ts).
      const sent = credentialsSentBack(
        masterKey,
        'integration',
        before,
        body.credentials,
        'body.credentials',
      );
      const secretColumns = await updatedSecretColumns(db, secrets, INTEGRATION_SECRETS, before, reach, {
        secret_mappings: body.secret_mappings,
        credentials: sent.credentials,
        credentialsParam: 'body.credentials',
        reachChanged: body.allow_all_workspaces !== undefined,
      });
      const credentials =
        secretColumns?.credentials ?? credentialColumns(sent.credentials, target, 'body.credentials');
      const updated = await mutate({ resourceId: before.id, workspaceId: null }, async (tx) => {
        const current = await findIntegration(tx.db, principal, before.id, { forUpdate: true });
        sameCredentials(sent, current, before, 'integration');
        let row: IntegrationRow;
        try {
          row = await tx.db
            .updateTable('integrations')
            .set({
              ...(body.name !== undefined ? { name: body.name } : {}),
              ...(body.slug !== undefined ? { slug: body.slug } : {}),
              ...(body.description !== undefined ? { description: body.description } : {}),
              ...(body.status !== undefined ? { status: body.status } : {}),
              ...credentials,
              ...(secretColumns?.columns ?? {}),
              ...(options !== undefined ? { options: JSON.stringify(options) } : {}),
              ...(body.allow_all_workspaces !== undefined
                ? { allow_all_workspaces: body.allow_all_workspaces }
                : {}),
              ...(body.allowed_models !== undefined ? { allowed_models: body.allowed_models } : {}),
              ...(body.rate_limits !== undefined
                ? { rate_limits: JSON.stringify(body.rate_limits ?? []) }
                : {}),
              ...(body.usage_limits !== undefined
                ? { usage_limits: JSON.stringify(body.usage_limits ?? []) }
                : {}),
              ...(body.tags !== undefined ? { tags: JSON.stringify(body.tags) } : {}),
              version: sql<number>`version + 1`,
              updated_at: new Date(),
            })
            .where('id', '=', before.id)
            .returningAll()
            .executeTakeFirstOrThrow();
        } catch (err) {
          if (isUniqueViolation(err)) throw slugTaken(body.slug ?? before.slug);
          throw err;
        }
        const subject = { kind: 'integration', id: row.id } as const;
        await resetEntityLimitAlerts(tx.db, subject, current.usage_limits, row.usage_limits);
        await tx.change(integrationEntity(row));
        return integrationToApi(row);
      });
      await fillCurrentUsage(ctx, integrationUsage(updated));
      return updated;
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/integrations/:integrationId',
    tag: TAG,
    summary: 'Delete an integration and its providers',
    scope: 'integrations.delete',
    level: 'organisation',
    minRole: 'admin',
    params: integrationParams,
    response: emptyObject,
    audit: { action: 'integrations.delete', resourceType: 'integration' },
    entity: { table: 'integrations' },
    async handler({ db, principal, params, mutate }) {
      const before = await findIntegration(db, principal, params.integrationId);
      return mutate({ resourceId: before.id, workspaceId: null }, async (tx) => {
        const row = await findIntegration(tx.db, principal, before.id, { forUpdate: true });
        await providers.deleteAllOf(tx, row.id);
        await tx.db.deleteFrom('integrations').where('id', '=', row.id).execute();
        await tx.change(
          await writeTombstone(tx.db, {
            kind: EntityKind.INTEGRATION,
            id: row.id,
            organisationId: row.organisation_id,
            workspaceId: null,
            lastVersion: Number(row.version),
          }),
        );
        return {};
      });
    },
  }),
  ...integrationWorkspaceRoutes(providers),
];
