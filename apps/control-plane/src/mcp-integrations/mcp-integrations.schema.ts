// Request and response schemas of the MCP integration routes.
import { z } from 'zod';
import { csvEnum, listSchema, pageQuery } from '../http/list.js';
import { entityNameSchema, entitySlugSchema } from '../integrations/integrations.schema.js';
import { tagFilterSchema, tagsSchema } from '../integrations/tags.js';
import { mcpAuthSchema, mcpUrlSchema } from './mcp-credentials.js';

const transport = z
  .enum(['streamable_http'])
  .describe('MCP transport of the server: `streamable_http` (the only one gateways relay)');

export const createMcpIntegrationBody = z
  .object({
    name: entityNameSchema,
    /** Default: derived from the name. */
    slug: entitySlugSchema.optional(),
    description: z.string().max(1024).optional(),
    url: mcpUrlSchema,
    transport: transport.default('streamable_http'),
    /** Default `{type: "none"}`. Write-only: responses mask the secrets. */
    auth: mcpAuthSchema.default({ type: 'none' }),
    tags: tagsSchema.optional(),
  })
  .strict();

export const updateMcpIntegrationBody = z
  .object({
    name: entityNameSchema.optional(),
    slug: entitySlugSchema.optional(),
    description: z.string().max(1024).optional(),
    url: mcpUrlSchema.optional(),
    transport: transport.optional(),
    /** A `token` or `client_secret` sent back masked keeps the stored one (same type; another mask is 400). */
    auth: mcpAuthSchema.optional(),
    status: z.enum(['active', 'archived']).optional(),
    tags: tagsSchema.optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'give at least one field to change');

export const mcpIntegrationParams = z.object({
  mcpIntegrationId: z
    .string()
    .max(255)
    .regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, 'must be a uuid or a slug'),
});

export const listMcpIntegrationsQuery = z
  .object({
    ...pageQuery,
    status: csvEnum(['active', 'archived']).default(['active']),
    tags: tagFilterSchema.optional(),
  })
  .strict();

export type ListMcpIntegrationsQuery = z.output<typeof listMcpIntegrationsQuery>;

export const mcpSyncSchema = z.object({
  status: z.enum(['pending', 'ok', 'error']),
  error: z.string().nullable(),
  last_attempt_at: z.string().nullable(),
  last_synced_at: z.string().nullable(),
});

export const mcpIntegrationSchema = z.object({
  id: z.uuid(),
  object: z.literal('mcp-integration'),
  organisation_id: z.uuid(),
  name: z.string(),
  slug: z.string(),
  description: z.string(),
  url: z.string(),
  transport,
  auth: z
    .record(z.string(), z.unknown())
    .describe('`type` and the masked credentials (`****` and the last four characters of secrets)'),
  status: z.enum(['active', 'archived']),
  tags: z.record(z.string(), z.string()),
  sync: mcpSyncSchema,
  created_at: z.string(),
  last_updated_at: z.string(),
});

export const mcpIntegrationListSchema = listSchema(mcpIntegrationSchema);
