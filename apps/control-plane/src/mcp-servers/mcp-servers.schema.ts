// Request and response schemas of the MCP server routes (servers, capabilities, user access, metadata).
import { z } from 'zod';
import { idOrSlug, listSchema, pageQuery, statusAndNameQuery, workspaceLookupQuery } from '../http/list.js';
import { entityNameSchema, entitySlugSchema } from '../integrations/integrations.schema.js';
import { mcpSyncSchema } from '../mcp-integrations/mcp-integrations.schema.js';

const names = z.array(z.string().min(1).max(2048)).max(1000);

export const userAccessSchema = z
  .object({
    /** True: every user and key of the workspace (holding `mcp.invoke`) may use the server. */
    allow_all: z.boolean(),
    user_ids: z.array(z.uuid()).max(1000).default([]),
    api_key_ids: z.array(z.uuid()).max(1000).default([]),
  })
  .strict();

export const capabilityUpdate = z
  .object({
    type: z.enum(['tool', 'resource', 'prompt']),
    /** Tool or prompt name; a resource's URI. */
    name: z.string().min(1).max(2048),
    enabled: z.boolean(),
  })
  .strict();

export const createMcpServerBody = z
  .object({
    name: entityNameSchema,
    /** Default: derived from the name. `/v1/mcp/<slug>` on the gateway. */
    slug: entitySlugSchema.optional(),
    description: z.string().max(1024).optional(),
    /** Required for organisation-level callers; workspace-bound callers default to theirs. */
    workspace_id: idOrSlug.optional(),
    /** The MCP integration (id or slug) this server offers to the workspace. */
    mcp_integration_id: idOrSlug,
    /** Default: everything the server offers is enabled. */
    capabilities: z.array(capabilityUpdate).max(1000).optional(),
    /** Default: `{allow_all: true}`. */
    user_access: userAccessSchema.optional(),
  })
  .strict();

export const updateMcpServerBody = z
  .object({
    name: entityNameSchema.optional(),
    slug: entitySlugSchema.optional(),
    description: z.string().max(1024).optional(),
    status: z.enum(['active', 'archived']).optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'give at least one field to change');

export const updateCapabilitiesBody = z
  .object({ capabilities: z.array(capabilityUpdate).min(1).max(1000) })
  .strict();

export const mcpServerParams = z.object({ mcpServerId: idOrSlug });
export const mcpServerLookupQuery = workspaceLookupQuery;

export const listMcpServersQuery = z
  .object({
    ...pageQuery,
    workspace_id: idOrSlug.optional(),
    mcp_integration_id: z.uuid().optional(),
    ...statusAndNameQuery,
  })
  .strict();

export const mcpServerSchema = z.object({
  id: z.uuid(),
  object: z.literal('mcp-server'),
  organisation_id: z.uuid(),
  workspace_id: z.uuid(),
  mcp_integration_id: z.uuid(),
  name: z.string(),
  slug: z.string(),
  description: z.string(),
  status: z.enum(['active', 'archived']),
  created_by_user_id: z.uuid().nullable(),
  created_by_api_key_id: z.uuid().nullable(),
  created_at: z.string(),
  last_updated_at: z.string(),
});
export const mcpServerListSchema = listSchema(mcpServerSchema);

const capabilityItem = z.object({
  type: z.enum(['tool', 'resource', 'prompt']),
  name: z.string(),
  title: z.string().nullable(),
  description: z.string().nullable(),
  enabled: z.boolean(),
  /** False for a disabled name the last sync did not see on the server. */
  offered: z.boolean(),
});

export const capabilitiesSchema = z.object({
  object: z.literal('mcp-server-capabilities'),
  mcp_server_id: z.uuid(),
  data: z.array(capabilityItem),
  disabled: z.object({ tools: names, resources: names, prompts: names }),
});

export const userAccessResponse = z.object({
  object: z.literal('mcp-server-user-access'),
  mcp_server_id: z.uuid(),
  allow_all: z.boolean(),
  user_ids: z.array(z.uuid()),
  api_key_ids: z.array(z.uuid()),
});

const icon = z.object({
  src: z.string(),
  mimeType: z.string().optional(),
  sizes: z.array(z.string()).optional(),
  theme: z.string().optional(),
});

export const metadataSchema = z.object({
  object: z.literal('mcp-server-metadata'),
  mcp_server_id: z.uuid(),
  title: z.string().nullable(),
  description: z.string().nullable(),
  icons: z.array(icon),
  server_name: z.string().nullable(),
  server_version: z.string().nullable(),
  protocol_version: z.string().nullable(),
  website_url: z.string().nullable(),
  instructions: z.string().nullable(),
  counts: z.object({ tools: z.number().int(), resources: z.number().int(), prompts: z.number().int() }),
  sync: mcpSyncSchema,
});
