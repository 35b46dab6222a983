// Typed view of the MCP tables (migration 0014), added to the control schema with `withTables` so
// this family needs no edit of the shared db/schema.ts.
import type { ColumnType, JSONColumnType, Kysely, Selectable } from 'kysely';
import type { CreatedAt, Status, UpdatedAt, Version } from './guardrails.db.js';
import type { ControlDatabase } from './schema.js';

type Json<T extends object> = JSONColumnType<T, string | undefined, string>;

export type McpTransportName = 'streamable_http';
export type McpAuthName = 'none' | 'bearer' | 'oauth_client_credentials';

export interface McpIntegrationsTable {
  id: string;
  organisation_id: string;
  name: string;
  slug: string;
  description: ColumnType<string, string | undefined, string>;
  url: string;
  transport: McpTransportName;
  auth_type: McpAuthName;
  /** AES-256-GCM envelope (AAD `mcp_integration:<id>`); null for auth `none`. */
  encrypted_credentials: Buffer | null;
  /** What responses show of the credentials (secrets masked). */
  masked_credentials: JSONColumnType<Record<string, unknown> | null, string | null, string | null>;
  status: Status;
  tags: Json<Record<string, string>>;
  version: Version;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

/** One named item a server offers (a tool, resource or prompt), as the last sync saw it. */
export interface McpItem {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
}

export interface McpServerInfo {
  readonly title?: string;
  readonly description?: string;
  readonly icons?: readonly { src: string; mimeType?: string; sizes?: string[]; theme?: string }[];
  readonly server_name?: string;
  readonly server_version?: string;
  readonly protocol_version?: string;
  readonly website_url?: string;
  readonly instructions?: string;
}

export interface McpIntegrationSyncTable {
  mcp_integration_id: string;
  status: 'pending' | 'ok' | 'error';
  error: string | null;
  metadata: Json<McpServerInfo>;
  tools: Json<McpItem[]>;
  resources: Json<McpItem[]>;
  prompts: Json<McpItem[]>;
  attempted_at: Date | null;
  synced_at: Date | null;
}

export interface McpCapabilitiesColumn {
  /** Names (resource URIs) disabled, per kind; everything else the server offers is enabled. */
  readonly tools: string[];
  readonly resources: string[];
  readonly prompts: string[];
}

export interface McpUserAccessColumn {
  readonly allow_all: boolean;
  readonly user_ids: string[];
  readonly api_key_ids: string[];
}

export interface McpServersTable {
  id: string;
  organisation_id: string;
  workspace_id: string;
  mcp_integration_id: string;
  name: string;
  slug: string;
  description: ColumnType<string, string | undefined, string>;
  status: Status;
  capabilities: Json<McpCapabilitiesColumn>;
  user_access: Json<McpUserAccessColumn>;
  created_by_user_id: string | null;
  created_by_api_key_id: string | null;
  version: Version;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export type McpTables = {
  mcp_integrations: McpIntegrationsTable;
  mcp_integration_sync: McpIntegrationSyncTable;
  mcp_servers: McpServersTable;
};

export type McpDatabase = ControlDatabase & McpTables;
export type McpIntegrationRow = Selectable<McpIntegrationsTable>;
export type McpServerRow = Selectable<McpServersTable>;
export type McpSyncRow = Selectable<McpIntegrationSyncTable>;

/** The control database with the MCP tables. */
export function mcpDb(db: Kysely<ControlDatabase>): Kysely<McpDatabase> {
  return db.withTables<McpTables>();
}
