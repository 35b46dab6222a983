// MCP server queries narrowed to what the caller may see (other workspaces: 404), the user-access
// rule of the admin API (a workspace member reaches only servers it may use: 403 otherwise), and the
// validation of the users and keys a user-access list names.
import { type ExpressionBuilder, type Kysely, type SqlBool, sql } from 'kysely';
import { forbidden, invalid, notFound, referenceNotFound } from '../api-errors.js';
import { type Principal, roleAtLeast } from '../auth/principal.js';
import { isUuid } from '../auth/visibility.js';
import { type McpDatabase, type McpServerRow, type McpUserAccessColumn, mcpDb } from '../db/mcp.db.js';
import { readPage } from '../db/page-read.js';
import type { ControlDatabase } from '../db/schema.js';
import { type Page, pageBounds } from '../http/list.js';

type Db = Kysely<ControlDatabase>;
type Eb = ExpressionBuilder<McpDatabase, 'mcp_servers'>;

function visibleTo(principal: Principal) {
  return (eb: Eb) =>
    eb.and([
      eb('organisation_id', '=', principal.organisationId),
      ...(principal.workspaceId !== null ? [eb('workspace_id', '=', principal.workspaceId)] : []),
    ]);
}

/** Managers and organisation callers manage servers; members only see the ones they may use. */
export function managesServers(principal: Principal): boolean {
  return principal.workspaceId === null || roleAtLeast(principal.role, 'manager');
}

/** The gateway's rule (apps/gateway/src/pipeline/mcp-route.ts, mayUse) in the admin API's words. */
export function mayUse(access: McpUserAccessColumn, principal: Principal): boolean {
  if (access.allow_all) return true;
  if (principal.userId !== null && access.user_ids.includes(principal.userId)) return true;
  return principal.apiKeyId !== null && access.api_key_ids.includes(principal.apiKeyId);
}

function usableBy(principal: Principal) {
  const user = JSON.stringify([principal.userId ?? '']);
  const key = JSON.stringify([principal.apiKeyId ?? '']);
  return sql<SqlBool>`((${sql.ref('user_access')} ->> 'allow_all')::boolean
    or ${sql.ref('user_access')} -> 'user_ids' @> ${user}::jsonb
    or ${sql.ref('user_access')} -> 'api_key_ids' @> ${key}::jsonb)`;
}

/**
 * The server named by id or slug when the caller may see it (404 AB08 otherwise), and, for members,
 * may use it (403 AB03 otherwise: they may know the server exists in their workspace).
 */
export async function findVisibleServer(
  db: Db,
  principal: Principal,
  ref: string,
  options: { workspaceId?: string | undefined; forUpdate?: boolean } = {},
): Promise<McpServerRow> {
  let query = mcpDb(db).selectFrom('mcp_servers').selectAll().where(visibleTo(principal));
  if (options.workspaceId !== undefined) query = query.where('workspace_id', '=', options.workspaceId);
  query = isUuid(ref) ? query.where('id', '=', ref.toLowerCase()) : query.where('slug', '=', ref);
  if (options.forUpdate) query = query.forUpdate();
  const rows = await query.limit(2).execute();
  if (rows.length > 1) {
    throw invalid(
      `several MCP servers have the slug "${ref}": name their workspace in workspace_id`,
      'query.workspace_id',
    );
  }
  const row = rows[0];
  if (!row) throw notFound('mcp server');
  if (!managesServers(principal) && !mayUse(row.user_access, principal)) {
    throw forbidden("this caller is not in the MCP server's user access");
  }
  return row;
}

export interface McpServerFilters extends Page {
  readonly workspaceId?: string;
  readonly mcpIntegrationId?: string;
  readonly status: readonly ('active' | 'archived')[];
  readonly name?: string;
}

export async function listMcpServers(
  db: Db,
  principal: Principal,
  filters: McpServerFilters,
): Promise<{ rows: McpServerRow[]; total: number }> {
  let base = mcpDb(db)
    .selectFrom('mcp_servers')
    .where(visibleTo(principal))
    .where('status', 'in', filters.status);
  if (!managesServers(principal)) base = base.where(usableBy(principal));
  if (filters.workspaceId !== undefined) base = base.where('workspace_id', '=', filters.workspaceId);
  if (filters.mcpIntegrationId !== undefined)
    base = base.where('mcp_integration_id', '=', filters.mcpIntegrationId);
  if (filters.name !== undefined) base = base.where('name', '=', filters.name);
  const { limit, offset } = pageBounds(filters);
  return readPage(db, base, (q) =>
    q.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(limit).offset(offset),
  );
}

/** Users must belong to the organisation, keys to the server's workspace: 404 AB02 naming the first stranger. */
export async function checkUserAccess(
  db: Db,
  server: { organisation_id: string; workspace_id: string },
  access: McpUserAccessColumn,
  param: string,
): Promise<void> {
  if (access.user_ids.length > 0) {
    const users = await db
      .selectFrom('users')
      .select('id')
      .where('organisation_id', '=', server.organisation_id)
      .where('id', 'in', access.user_ids)
      .execute();
    const known = new Set(users.map((u) => u.id));
    const stranger = access.user_ids.find((id) => !known.has(id));
    if (stranger)
      throw referenceNotFound(`user ${stranger} not found in the organisation`, `${param}.user_ids`);
  }
  if (access.api_key_ids.length > 0) {
    const keys = await db
      .selectFrom('api_keys')
      .select('id')
      .where('organisation_id', '=', server.organisation_id)
      .where('workspace_id', '=', server.workspace_id)
      .where('id', 'in', access.api_key_ids)
      .execute();
    const known = new Set(keys.map((k) => k.id));
    const stranger = access.api_key_ids.find((id) => !known.has(id));
    if (stranger)
      throw referenceNotFound(`API key ${stranger} not found in the workspace`, `${param}.api_key_ids`);
  }
}

export function uniqueAccess(access: McpUserAccessColumn): McpUserAccessColumn {
  return {
    allow_all: access.allow_all,
    user_ids: [...new Set(access.user_ids.map((id) => id.toLowerCase()))],
    api_key_ids: [...new Set(access.api_key_ids.map((id) => id.toLowerCase()))],
  };
}
