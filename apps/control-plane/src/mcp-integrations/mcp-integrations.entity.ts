// MCP integration rows as the API returns them (credentials masked, sync state) and as gateways
// receive them (proto Entity MCP_INTEGRATION: credentials only as the sealed envelope).
import { type Entity, EntityKind, EntityStatus, McpAuthType, McpTransport } from '@aigw/proto';
import type { Kysely } from 'kysely';
import { type McpIntegrationRow, type McpSyncRow, mcpDb } from '../db/mcp.db.js';
import type { ControlDatabase } from '../db/schema.js';

const AUTH_TYPES = {
  none: McpAuthType.NONE,
  bearer: McpAuthType.BEARER,
  oauth_client_credentials: McpAuthType.OAUTH_CLIENT_CREDENTIALS,
} as const;

export function syncToApi(sync: McpSyncRow | undefined) {
  return {
    status: sync?.status ?? ('pending' as const),
    error: sync?.error ?? null,
    last_attempt_at: sync?.attempted_at?.toISOString() ?? null,
    last_synced_at: sync?.synced_at?.toISOString() ?? null,
  };
}

export function mcpIntegrationToApi(row: McpIntegrationRow, sync: McpSyncRow | undefined) {
  return {
    id: row.id,
    object: 'mcp-integration' as const,
    organisation_id: row.organisation_id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    url: row.url,
    transport: row.transport,
    auth: { type: row.auth_type, ...(row.masked_credentials ?? {}) },
    status: row.status,
    tags: row.tags,
    sync: syncToApi(sync),
    created_at: row.created_at.toISOString(),
    last_updated_at: row.updated_at.toISOString(),
  };
}

export function mcpIntegrationEntity(row: McpIntegrationRow): Entity {
  return {
    kind: EntityKind.MCP_INTEGRATION,
    id: row.id,
    version: Number(row.version),
    tombstone: false,
    organisationId: row.organisation_id,
    workspaceId: '',
    updatedAtMs: row.updated_at.getTime(),
    body: {
      $case: 'mcpIntegration',
      value: {
        name: row.name,
        slug: row.slug,
        url: row.url,
        transport: McpTransport.STREAMABLE_HTTP,
        authType: AUTH_TYPES[row.auth_type],
        encryptedCredentials: row.encrypted_credentials ?? Buffer.alloc(0),
        status: row.status === 'active' ? EntityStatus.ACTIVE : EntityStatus.ARCHIVED,
        tags: row.tags,
      },
    },
  };
}

/** Snapshot reader: every MCP integration of every organisation. */
export async function readMcpIntegrationEntities(trx: Kysely<ControlDatabase>): Promise<Entity[]> {
  return (await mcpDb(trx).selectFrom('mcp_integrations').selectAll().execute()).map(mcpIntegrationEntity);
}
