// MCP integrations: an organisation's remote MCP servers (URL, transport, auth), organisation-level
// callers only. Credentials are sealed (on update under the row lock, so a secret sent back masked is
// read against what is stored) and never returned. Every create and update is followed by a sync of
// the server's metadata (recorded, never failing the call).
import { randomUUID } from 'node:crypto';
import { EntityKind } from '@aigw/proto';
import { sql } from 'kysely';
import { conflict } from '../api-errors.js';
import { type McpIntegrationRow, mcpDb } from '../db/mcp.db.js';
import { toList } from '../http/list.js';
import { defineRoute, emptyObject, type RouteContext, type RouteDefinition } from '../http/route.js';
import { slugFromName } from '../http/slug.js';
import { writeTombstone } from '../tombstones/tombstones.js';
import { mcpCredentialColumns, unmaskMcpAuth } from './mcp-credentials.js';
import { mcpIntegrationEntity, mcpIntegrationToApi } from './mcp-integrations.entity.js';
import {
  findMcpIntegration,
  isUniqueViolation,
  listMcpIntegrations,
  mcpSlugTaken,
  syncRows,
} from './mcp-integrations.repository.js';
import {
  createMcpIntegrationBody,
  listMcpIntegrationsQuery,
  mcpIntegrationListSchema,
  mcpIntegrationParams,
  mcpIntegrationSchema,
  updateMcpIntegrationBody,
} from './mcp-integrations.schema.js';
import { syncMcpIntegration } from './mcp-sync.js';

const TAG = 'MCP Integrations';

/** Syncs after the commit (the server may be slow; the change is already made) and answers with it. */
async function syncedToApi(ctx: RouteContext<unknown, unknown, unknown>, row: McpIntegrationRow) {
  await syncMcpIntegration({ db: ctx.db, masterKey: ctx.masterKey, log: ctx.log }, row);
  return mcpIntegrationToApi(row, (await syncRows(ctx.db, [row.id])).get(row.id));
}

export const mcpIntegrationRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'post',
    path: '/mcp-integrations',
    tag: TAG,
    summary: 'Create an MCP integration',
    scope: 'mcp_integrations.create',
    level: 'organisation',
    minRole: 'admin',
    body: createMcpIntegrationBody,
    response: mcpIntegrationSchema,
    status: 201,
    audit: { action: 'mcp_integrations.create', resourceType: 'mcp_integration' },
    entity: { table: 'mcp_integrations' },
    async handler(ctx) {
      const { principal, body, mutate, masterKey } = ctx;
      const id = randomUUID();
      const credentials = mcpCredentialColumns(body.auth, id, masterKey);
      const slug = body.slug ?? slugFromName(body.name, 'mcp-integration');
      const row = await mutate({ resourceId: id, workspaceId: null }, async (tx) => {
        let created: McpIntegrationRow;
        try {
          created = await mcpDb(tx.db)
            .insertInto('mcp_integrations')
            .values({
              id,
              organisation_id: principal.organisationId,
              name: body.name,
              slug,
              description: body.description ?? '',
              url: body.url,
              transport: body.transport,
              ...credentials,
              tags: JSON.stringify(body.tags ?? {}),
            })
            .returningAll()
            .executeTakeFirstOrThrow();
        } catch (err) {
          if (isUniqueViolation(err)) throw mcpSlugTaken(slug);
          throw err;
        }
        await tx.change(mcpIntegrationEntity(created));
        return created;
      });
      return syncedToApi(ctx as RouteContext<unknown, unknown, unknown>, row);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/mcp-integrations',
    tag: TAG,
    summary: 'List MCP integrations',
    scope: 'mcp_integrations.list',
    level: 'organisation',
    query: listMcpIntegrationsQuery,
    response: mcpIntegrationListSchema,
    async handler({ db, principal, query }) {
      const { rows, total } = await listMcpIntegrations(db, principal, query);
      const sync = await syncRows(
        db,
        rows.map((r) => r.id),
      );
      return toList(
        rows.map((row) => mcpIntegrationToApi(row, sync.get(row.id))),
        total,
      );
    },
  }),
  defineRoute({
    method: 'get',
    path: '/mcp-integrations/:mcpIntegrationId',
    tag: TAG,
    summary: 'Get an MCP integration',
    scope: 'mcp_integrations.read',
    level: 'organisation',
    params: mcpIntegrationParams,
    response: mcpIntegrationSchema,
    entity: { table: 'mcp_integrations' },
    async handler({ db, principal, params }) {
      const row = await findMcpIntegration(db, principal.organisationId, params.mcpIntegrationId);
      return mcpIntegrationToApi(row, (await syncRows(db, [row.id])).get(row.id));
    },
  }),
  defineRoute({
    method: 'put',
    path: '/mcp-integrations/:mcpIntegrationId',
    tag: TAG,
    summary: 'Update an MCP integration',
    scope: 'mcp_integrations.update',
    level: 'organisation',
    minRole: 'admin',
    params: mcpIntegrationParams,
    body: updateMcpIntegrationBody,
    response: mcpIntegrationSchema,
    audit: { action: 'mcp_integrations.update', resourceType: 'mcp_integration' },
    entity: { table: 'mcp_integrations' },
    async handler(ctx) {
      const { db, principal, params, body, mutate, masterKey } = ctx;
      const before = await findMcpIntegration(db, principal.organisationId, params.mcpIntegrationId);
      const row = await mutate({ resourceId: before.id, workspaceId: null }, async (tx) => {
        const current = await findMcpIntegration(tx.db, principal.organisationId, before.id, {
          forUpdate: true,
        });
        // Sealed under the row lock: a secret sent back masked is read against what is stored now.
        const credentials =
          body.auth === undefined
            ? {}
            : mcpCredentialColumns(
                unmaskMcpAuth(body.auth, current, masterKey, 'body.auth'),
                current.id,
                masterKey,
              );
        let updated: McpIntegrationRow;
        try {
          updated = await mcpDb(tx.db)
            .updateTable('mcp_integrations')
            .set({
              ...(body.name !== undefined ? { name: body.name } : {}),
              ...(body.slug !== undefined ? { slug: body.slug } : {}),
              ...(body.description !== undefined ? { description: body.description } : {}),
              ...(body.url !== undefined ? { url: body.url } : {}),
              ...(body.transport !== undefined ? { transport: body.transport } : {}),
              ...(body.status !== undefined ? { status: body.status } : {}),
              ...(body.tags !== undefined ? { tags: JSON.stringify(body.tags) } : {}),
              ...credentials,
              version: sql<number>`version + 1`,
              updated_at: new Date(),
            })
            .where('id', '=', before.id)
            .returningAll()
            .executeTakeFirstOrThrow();
        } catch (err) {
          if (isUniqueViolation(err)) throw mcpSlugTaken(body.slug ?? before.slug);
          throw err;
        }
        await tx.change(mcpIntegrationEntity(updated));
        return updated;
      });
      return syncedToApi(ctx as RouteContext<unknown, unknown, unknown>, row);
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/mcp-integrations/:mcpIntegrationId',
    tag: TAG,
    summary: 'Delete an MCP integration (none of its MCP servers may remain)',
    scope: 'mcp_integrations.delete',
    level: 'organisation',
    minRole: 'admin',
    params: mcpIntegrationParams,
    response: emptyObject,
    audit: { action: 'mcp_integrations.delete', resourceType: 'mcp_integration' },
    entity: { table: 'mcp_integrations' },
    async handler({ db, principal, params, mutate }) {
      const before = await findMcpIntegration(db, principal.organisationId, params.mcpIntegrationId);
      return mutate({ resourceId: before.id, workspaceId: null }, async (tx) => {
        const row = await findMcpIntegration(tx.db, principal.organisationId, before.id, { forUpdate: true });
        const used = await mcpDb(tx.db)
          .selectFrom('mcp_servers')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('mcp_integration_id', '=', row.id)
          .executeTakeFirstOrThrow();
        if (Number(used.n) > 0) {
          throw conflict(
            `${used.n} MCP server(s) still use this integration: delete them first`,
            'mcpIntegrationId',
          );
        }
        await mcpDb(tx.db).deleteFrom('mcp_integrations').where('id', '=', row.id).execute();
        await tx.change(
          await writeTombstone(tx.db, {
            kind: EntityKind.MCP_INTEGRATION,
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
];
