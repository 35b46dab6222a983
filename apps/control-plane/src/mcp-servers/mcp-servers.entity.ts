// MCP server rows as the API returns them (server, capabilities, user access, metadata) and as
// gateways receive them (proto Entity MCP_SERVER: slug, integration, disabled names, user access).
import { type Entity, EntityKind, EntityStatus } from '@aigw/proto';
import type { Kysely } from 'kysely';
import { type McpItem, type McpServerRow, type McpSyncRow, mcpDb } from '../db/mcp.db.js';
import type { ControlDatabase } from '../db/schema.js';
import { syncToApi } from '../mcp-integrations/mcp-integrations.entity.js';

export function mcpServerToApi(row: McpServerRow) {
  return {
    id: row.id,
    object: 'mcp-server' as const,
    organisation_id: row.organisation_id,
    workspace_id: row.workspace_id,
    mcp_integration_id: row.mcp_integration_id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    status: row.status,
    created_by_user_id: row.created_by_user_id,
    created_by_api_key_id: row.created_by_api_key_id,
    created_at: row.created_at.toISOString(),
    last_updated_at: row.updated_at.toISOString(),
  };
}

const KINDS = [
  ['tool', 'tools'],
  ['resource', 'resources'],
  ['prompt', 'prompts'],
] as const;

/** What the server offers (last sync) with enabled flags, plus disabled names it no longer offers. */
export function capabilitiesToApi(row: McpServerRow, sync: McpSyncRow | undefined) {
  const data = KINDS.flatMap(([type, plural]) => {
    const disabled = new Set(row.capabilities[plural]);
    const offered: readonly McpItem[] = sync?.[plural] ?? [];
    const seen = new Set(offered.map((i) => i.name));
    return [
      ...offered.map((i) => ({
        type,
        name: i.name,
        title: i.title ?? null,
        description: i.description ?? null,
        enabled: !disabled.has(i.name),
        offered: true,
      })),
      ...[...disabled]
        .filter((name) => !seen.has(name))
        .map((name) => ({ type, name, title: null, description: null, enabled: false, offered: false })),
    ];
  });
  return {
    object: 'mcp-server-capabilities' as const,
    mcp_server_id: row.id,
    data,
    disabled: row.capabilities,
  };
}

export function userAccessToApi(row: McpServerRow) {
  return {
    object: 'mcp-server-user-access' as const,
    mcp_server_id: row.id,
    allow_all: row.user_access.allow_all,
    user_ids: row.user_access.user_ids,
    api_key_ids: row.user_access.api_key_ids,
  };
}

export function metadataToApi(row: McpServerRow, sync: McpSyncRow | undefined) {
  const m = sync?.metadata ?? {};
  return {
    object: 'mcp-server-metadata' as const,
    mcp_server_id: row.id,
    title: m.title ?? null,
    description: m.description ?? null,
    icons: [...(m.icons ?? [])],
    server_name: m.server_name ?? null,
    server_version: m.server_version ?? null,
    protocol_version: m.protocol_version ?? null,
    website_url: m.website_url ?? null,
    instructions: m.instructions ?? null,
    counts: {
      tools: sync?.tools.length ?? 0,
      resources: sync?.resources.length ?? 0,
      prompts: sync?.prompts.length ?? 0,
    },
    sync: syncToApi(sync),
  };
}

export function mcpServerEntity(row: McpServerRow): Entity {
  return {
    kind: EntityKind.MCP_SERVER,
    id: row.id,
    version: Number(row.version),
    tombstone: false,
    organisationId: row.organisation_id,
    workspaceId: row.workspace_id,
    updatedAtMs: row.updated_at.getTime(),
    body: {
      $case: 'mcpServer',
      value: {
        name: row.name,
        slug: row.slug,
        mcpIntegrationId: row.mcp_integration_id,
        status: row.status === 'active' ? EntityStatus.ACTIVE : EntityStatus.ARCHIVED,
        capabilities: {
          disabledTools: row.capabilities.tools,
          disabledResources: row.capabilities.resources,
          disabledPrompts: row.capabilities.prompts,
        },
        userAccess: {
          allowAll: row.user_access.allow_all,
          userIds: row.user_access.user_ids,
          apiKeyIds: row.user_access.api_key_ids,
        },
      },
    },
  };
}

/** Snapshot reader: every MCP server of every workspace. */
export async function readMcpServerEntities(trx: Kysely<ControlDatabase>): Promise<Entity[]> {
  return (await mcpDb(trx).selectFrom('mcp_servers').selectAll().execute()).map(mcpServerEntity);
}
