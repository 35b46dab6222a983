// MCP integration queries, always inside the caller's organisation, and their sync rows.
import type { Kysely } from 'kysely';
import { conflict, notFound } from '../api-errors.js';
import type { Principal } from '../auth/principal.js';
import { isUuid } from '../auth/visibility.js';
import { type McpIntegrationRow, type McpSyncRow, mcpDb } from '../db/mcp.db.js';
import { readPage } from '../db/page-read.js';
import type { ControlDatabase } from '../db/schema.js';
import { pageBounds } from '../http/list.js';
import { tagsContain } from '../integrations/tags.js';
import type { ListMcpIntegrationsQuery } from './mcp-integrations.schema.js';

type Db = Kysely<ControlDatabase>;

/** The organisation's MCP integration by id or slug, else 404 AB08. */
export async function findMcpIntegration(
  db: Db,
  organisationId: string,
  idOrSlug: string,
  options: { forUpdate?: boolean } = {},
): Promise<McpIntegrationRow> {
  const byId = isUuid(idOrSlug);
  let query = mcpDb(db)
    .selectFrom('mcp_integrations')
    .selectAll()
    .where('organisation_id', '=', organisationId)
    .where(byId ? 'id' : 'slug', '=', byId ? idOrSlug.toLowerCase() : idOrSlug);
  if (options.forUpdate) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  if (!row) throw notFound('mcp integration');
  return row;
}

export async function listMcpIntegrations(
  db: Db,
  principal: Principal,
  query: ListMcpIntegrationsQuery,
): Promise<{ rows: McpIntegrationRow[]; total: number }> {
  let base = mcpDb(db)
    .selectFrom('mcp_integrations')
    .where('organisation_id', '=', principal.organisationId)
    .where('status', 'in', query.status);
  if (query.tags !== undefined) base = base.where(tagsContain(query.tags));
  const { limit, offset } = pageBounds(query);
  return readPage(db, base, (q) =>
    q.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(limit).offset(offset),
  );
}

/** Sync rows by integration id. */
export async function syncRows(db: Db, ids: readonly string[]): Promise<Map<string, McpSyncRow>> {
  if (ids.length === 0) return new Map();
  const rows = await mcpDb(db)
    .selectFrom('mcp_integration_sync')
    .selectAll()
    .where('mcp_integration_id', 'in', ids)
    .execute();
  return new Map(rows.map((row) => [row.mcp_integration_id, row]));
}

export function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: unknown }).code === '23505';
}

export function mcpSlugTaken(slug: string) {
  return conflict(`an MCP integration with slug "${slug}" already exists in the organisation`, 'body.slug');
}
