// MCP servers: an MCP integration offered to one workspace under a slug (`/v1/mcp/<slug>` on the
// gateway), with its capabilities (disabled tools, resources, prompts), user access and metadata.
// Organisation callers manage every workspace's servers; workspace-bound callers only their own
// (others are 404); members reach only the servers they may use (403 otherwise).
import { randomUUID } from 'node:crypto';
import { EntityKind } from '@aigw/proto';
import { type Kysely, sql } from 'kysely';
import { conflict, referenceNotFound } from '../api-errors.js';
import { lookupWorkspace, targetWorkspace } from '../auth/visibility.js';
import { type McpServerRow, mcpDb } from '../db/mcp.db.js';
import type { ControlDatabase } from '../db/schema.js';
import { lockSlugs } from '../db/slug-lock.js';
import { toList } from '../http/list.js';
import { defineRoute, emptyObject, type MutationTx, type RouteDefinition } from '../http/route.js';
import { candidatePrefix, firstFreeSlug, slugFromName } from '../http/slug.js';
import { findMcpIntegration, syncRows } from '../mcp-integrations/mcp-integrations.repository.js';
import { syncMcpIntegration } from '../mcp-integrations/mcp-sync.js';
import { creatorOf } from '../providers/providers.repository.js';
import { writeTombstone } from '../tombstones/tombstones.js';
import { ALL_ENABLED, applyCapabilities } from './capabilities.js';
import {
  capabilitiesToApi,
  mcpServerEntity,
  mcpServerToApi,
  metadataToApi,
  userAccessToApi,
} from './mcp-servers.entity.js';
import {
  checkUserAccess,
  findVisibleServer,
  listMcpServers,
  uniqueAccess,
} from './mcp-servers.repository.js';
import {
  capabilitiesSchema,
  createMcpServerBody,
  listMcpServersQuery,
  mcpServerListSchema,
  mcpServerLookupQuery,
  mcpServerParams,
  mcpServerSchema,
  metadataSchema,
  updateCapabilitiesBody,
  updateMcpServerBody,
  userAccessResponse,
  userAccessSchema,
} from './mcp-servers.schema.js';

const TAG = 'MCP Servers';

async function slugFree(db: Kysely<ControlDatabase>, workspaceId: string, slug: string, exceptId?: string) {
  let query = mcpDb(db)
    .selectFrom('mcp_servers')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('slug', '=', slug);
  if (exceptId) query = query.where('id', '!=', exceptId);
  if (await query.executeTakeFirst()) {
    throw conflict(`an MCP server with slug "${slug}" already exists in the workspace`, 'body.slug');
  }
}

async function derivedSlug(db: Kysely<ControlDatabase>, workspaceId: string, name: string): Promise<string> {
  const base = slugFromName(name, 'mcp-server');
  const taken = await mcpDb(db)
    .selectFrom('mcp_servers')
    .select('slug')
    .where('workspace_id', '=', workspaceId)
    .where('slug', 'like', candidatePrefix(base))
    .execute();
  return firstFreeSlug(base, new Set(taken.map((r) => r.slug)));
}

/** Writes the new state of a server and announces it to gateways. */
async function updateServer(
  tx: MutationTx,
  id: string,
  set: Partial<{ name: string; slug: string; description: string; status: 'active' | 'archived' }> & {
    capabilities?: string;
    user_access?: string;
  },
): Promise<McpServerRow> {
  const row = await mcpDb(tx.db)
    .updateTable('mcp_servers')
    .set({ ...set, version: sql<number>`version + 1`, updated_at: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await tx.change(mcpServerEntity(row));
  return row;
}

export const mcpServerRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'post',
    path: '/mcp-servers',
    tag: TAG,
    summary: 'Create an MCP server',
    scope: 'mcp_servers.create',
    level: 'workspace',
    minRole: 'manager',
    body: createMcpServerBody,
    response: mcpServerSchema,
    status: 201,
    audit: { action: 'mcp_servers.create', resourceType: 'mcp_server' },
    entity: { table: 'mcp_servers' },
    async handler({ db, principal, body, mutate, masterKey, log }) {
      const workspace = await targetWorkspace(db, principal, body.workspace_id, 'body.workspace_id');
      if (workspace.status === 'archived') throw conflict('the workspace is archived', 'body.workspace_id');
      const integration = await findMcpIntegration(
        db,
        workspace.organisation_id,
        body.mcp_integration_id,
      ).catch(() => {
        throw referenceNotFound('mcp integration not found', 'body.mcp_integration_id');
      });
      const access = uniqueAccess(body.user_access ?? { allow_all: true, user_ids: [], api_key_ids: [] });
      const scope = { organisation_id: workspace.organisation_id, workspace_id: workspace.id };
      await checkUserAccess(db, scope, access, 'body.user_access');
      const id = randomUUID();
      const row = await mutate({ resourceId: id, workspaceId: workspace.id }, async (tx) => {
        await lockSlugs(tx.db, `mcp_servers:${workspace.id}`);
        const slug = body.slug ?? (await derivedSlug(tx.db, workspace.id, body.name));
        await slugFree(tx.db, workspace.id, slug);
        const created = await mcpDb(tx.db)
          .insertInto('mcp_servers')
          .values({
            id,
            organisation_id: workspace.organisation_id,
            workspace_id: workspace.id,
            mcp_integration_id: integration.id,
            name: body.name,
            slug,
            description: body.description ?? '',
            capabilities: JSON.stringify(applyCapabilities(ALL_ENABLED, body.capabilities ?? [])),
            user_access: JSON.stringify(access),
            ...creatorOf(principal),
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        await tx.change(mcpServerEntity(created));
        return created;
      });
      // A server on a new integration shows its metadata at once.
      await syncMcpIntegration({ db, masterKey, log }, integration);
      return mcpServerToApi(row);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/mcp-servers',
    tag: TAG,
    summary: 'List MCP servers',
    scope: 'mcp_servers.list',
    level: 'workspace',
    query: listMcpServersQuery,
    response: mcpServerListSchema,
    async handler({ db, principal, query }) {
      const workspaceId = await lookupWorkspace(db, principal, query.workspace_id);
      const { rows, total } = await listMcpServers(db, principal, {
        page_size: query.page_size,
        current_page: query.current_page,
        status: query.status,
        ...(workspaceId !== undefined ? { workspaceId } : {}),
        ...(query.mcp_integration_id !== undefined ? { mcpIntegrationId: query.mcp_integration_id } : {}),
        ...(query.name !== undefined ? { name: query.name } : {}),
      });
      return toList(rows.map(mcpServerToApi), total);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/mcp-servers/:mcpServerId',
    tag: TAG,
    summary: 'Get an MCP server',
    scope: 'mcp_servers.read',
    level: 'workspace',
    params: mcpServerParams,
    query: mcpServerLookupQuery,
    response: mcpServerSchema,
    entity: { table: 'mcp_servers' },
    async handler({ db, principal, params, query }) {
      const workspaceId = await lookupWorkspace(db, principal, query.workspace_id);
      return mcpServerToApi(await findVisibleServer(db, principal, params.mcpServerId, { workspaceId }));
    },
  }),
  defineRoute({
    method: 'put',
    path: '/mcp-servers/:mcpServerId',
    tag: TAG,
    summary: 'Update an MCP server',
    scope: 'mcp_servers.update',
    level: 'workspace',
    minRole: 'manager',
    params: mcpServerParams,
    query: mcpServerLookupQuery,
    body: updateMcpServerBody,
    response: mcpServerSchema,
    audit: { action: 'mcp_servers.update', resourceType: 'mcp_server' },
    entity: { table: 'mcp_servers' },
    async handler({ db, principal, params, query, body, mutate, masterKey, log }) {
      const workspaceId = await lookupWorkspace(db, principal, query.workspace_id);
      const before = await findVisibleServer(db, principal, params.mcpServerId, { workspaceId });
      const row = await mutate({ resourceId: before.id, workspaceId: before.workspace_id }, async (tx) => {
        const current = await findVisibleServer(tx.db, principal, before.id, { forUpdate: true });
        if (body.slug !== undefined) {
          await lockSlugs(tx.db, `mcp_servers:${current.workspace_id}`);
          await slugFree(tx.db, current.workspace_id, body.slug, current.id);
        }
        return updateServer(tx, current.id, body);
      });
      const integration = await findMcpIntegration(db, row.organisation_id, row.mcp_integration_id);
      await syncMcpIntegration({ db, masterKey, log }, integration);
      return mcpServerToApi(row);
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/mcp-servers/:mcpServerId',
    tag: TAG,
    summary: 'Delete an MCP server',
    scope: 'mcp_servers.delete',
    level: 'workspace',
    minRole: 'manager',
    params: mcpServerParams,
    query: mcpServerLookupQuery,
    response: emptyObject,
    audit: { action: 'mcp_servers.delete', resourceType: 'mcp_server' },
    entity: { table: 'mcp_servers' },
    async handler({ db, principal, params, query, mutate }) {
      const workspaceId = await lookupWorkspace(db, principal, query.workspace_id);
      const before = await findVisibleServer(db, principal, params.mcpServerId, { workspaceId });
      return mutate({ resourceId: before.id, workspaceId: before.workspace_id }, async (tx) => {
        const row = await findVisibleServer(tx.db, principal, before.id, { forUpdate: true });
        await mcpDb(tx.db).deleteFrom('mcp_servers').where('id', '=', row.id).execute();
        await tx.change(
          await writeTombstone(tx.db, {
            kind: EntityKind.MCP_SERVER,
            id: row.id,
            organisationId: row.organisation_id,
            workspaceId: row.workspace_id,
            lastVersion: Number(row.version),
          }),
        );
        return {};
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/mcp-servers/:mcpServerId/capabilities',
    tag: TAG,
    summary: 'List the tools, resources and prompts of an MCP server and whether each is enabled',
    scope: 'mcp_servers.read',
    level: 'workspace',
    params: mcpServerParams,
    query: mcpServerLookupQuery,
    response: capabilitiesSchema,
    async handler({ db, principal, params, query }) {
      const workspaceId = await lookupWorkspace(db, principal, query.workspace_id);
      const row = await findVisibleServer(db, principal, params.mcpServerId, { workspaceId });
      return capabilitiesToApi(
        row,
        (await syncRows(db, [row.mcp_integration_id])).get(row.mcp_integration_id),
      );
    },
  }),
  defineRoute({
    method: 'put',
    path: '/mcp-servers/:mcpServerId/capabilities',
    tag: TAG,
    summary: 'Enable or disable tools, resources and prompts of an MCP server',
    scope: 'mcp_servers.update',
    level: 'workspace',
    minRole: 'manager',
    params: mcpServerParams,
    query: mcpServerLookupQuery,
    body: updateCapabilitiesBody,
    response: capabilitiesSchema,
    audit: { action: 'mcp_servers.update_capabilities', resourceType: 'mcp_server' },
    entity: { exempt: 'it writes a part of the MCP server and answers that part, not the versioned server' },
    async handler({ db, principal, params, query, body, mutate }) {
      const workspaceId = await lookupWorkspace(db, principal, query.workspace_id);
      const before = await findVisibleServer(db, principal, params.mcpServerId, { workspaceId });
      const row = await mutate({ resourceId: before.id, workspaceId: before.workspace_id }, async (tx) => {
        const current = await findVisibleServer(tx.db, principal, before.id, { forUpdate: true });
        const capabilities = applyCapabilities(current.capabilities, body.capabilities);
        return updateServer(tx, current.id, { capabilities: JSON.stringify(capabilities) });
      });
      return capabilitiesToApi(
        row,
        (await syncRows(db, [row.mcp_integration_id])).get(row.mcp_integration_id),
      );
    },
  }),
  defineRoute({
    method: 'get',
    path: '/mcp-servers/:mcpServerId/user-access',
    tag: TAG,
    summary: 'Get which users and API keys may use an MCP server',
    scope: 'mcp_servers.read',
    level: 'workspace',
    params: mcpServerParams,
    query: mcpServerLookupQuery,
    response: userAccessResponse,
    async handler({ db, principal, params, query }) {
      const workspaceId = await lookupWorkspace(db, principal, query.workspace_id);
      return userAccessToApi(await findVisibleServer(db, principal, params.mcpServerId, { workspaceId }));
    },
  }),
  defineRoute({
    method: 'put',
    path: '/mcp-servers/:mcpServerId/user-access',
    tag: TAG,
    summary: 'Set which users and API keys may use an MCP server',
    scope: 'mcp_servers.update',
    level: 'workspace',
    minRole: 'manager',
    params: mcpServerParams,
    query: mcpServerLookupQuery,
    body: userAccessSchema,
    response: userAccessResponse,
    audit: { action: 'mcp_servers.update_user_access', resourceType: 'mcp_server' },
    entity: { exempt: 'it writes a part of the MCP server and answers that part, not the versioned server' },
    async handler({ db, principal, params, query, body, mutate }) {
      const workspaceId = await lookupWorkspace(db, principal, query.workspace_id);
      const before = await findVisibleServer(db, principal, params.mcpServerId, { workspaceId });
      const access = uniqueAccess(body);
      await checkUserAccess(db, before, access, 'body');
      const row = await mutate({ resourceId: before.id, workspaceId: before.workspace_id }, async (tx) => {
        const current = await findVisibleServer(tx.db, principal, before.id, { forUpdate: true });
        return updateServer(tx, current.id, { user_access: JSON.stringify(access) });
      });
      return userAccessToApi(row);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/mcp-servers/:mcpServerId/metadata',
    tag: TAG,
    summary: 'Get the metadata of an MCP server (as the last sync read it) and its sync status',
    scope: 'mcp_servers.read',
    level: 'workspace',
    params: mcpServerParams,
    query: mcpServerLookupQuery,
    response: metadataSchema,
    async handler({ db, principal, params, query }) {
      const workspaceId = await lookupWorkspace(db, principal, query.workspace_id);
      const row = await findVisibleServer(db, principal, params.mcpServerId, { workspaceId });
      return metadataToApi(row, (await syncRows(db, [row.mcp_integration_id])).get(row.mcp_integration_id));
    },
  }),
];
