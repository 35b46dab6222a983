// Request and response schemas of the integration routes (credentials and options are checked per
// provider type in credentials.ts and options.ts, so their errors name the exact field).
import { z } from 'zod';
import { isUuid } from '../auth/visibility.js';
import { csvEnum, idOrSlug, listSchema, pageQuery } from '../http/list.js';
import { slugFromName as deriveSlug } from '../http/slug.js';
import { rateLimitOut, rateLimitsSchema, usageLimitOut, usageLimitsSchema } from '../limits/limits.schema.js';
import { AI_PROVIDERS } from './provider-types.js';
import { secretMappingsOut, secretStateOut } from './secret-state.js';
import { tagFilterSchema, tagsSchema } from './tags.js';

/** Integration and provider slugs: `@<slug>` in requests, so no `@`, `/` or upper case. */
export const entitySlugSchema = z
  .string()
  .max(255)
  .regex(
    /^[a-z0-9][a-z0-9_-]*$/,
    'must be lowercase letters, digits, "-" or "_", starting with a letter or digit',
  )
  .refine((s) => !isUuid(s), 'must not have the form of a uuid');

export const entityNameSchema = z.string().trim().min(1).max(255);

/** Model names, de-duplicated; empty means every model. */
export const allowedModelsSchema = z
  .array(z.string().min(1).max(256))
  .max(1000)
  .transform((models) => [...new Set(models)]);

const credentialsInput = z
  .record(z.string(), z.unknown())
  .describe(
    'Per ai_provider: {api_key}; azure-openai also {client_id, client_secret, tenant_id}; ' +
      'bedrock {aws_access_key_id, aws_secret_access_key, aws_session_token?}; vertex-ai ' +
      '{service_account_json}; each may add custom_headers {name: value}. Write-only: responses mask it; ' +
      'on update a value sent back masked keeps the stored one at that field (another mask is 400).',
  );

const optionsInput = z
  .record(z.string(), z.unknown())
  .describe(
    'custom_host; azure-openai resource_name, api_version, deployments; bedrock region; ' +
      'vertex-ai project_id, region',
  );

export const workspaceEntryInput = z
  .object({
    id: idOrSlug,
    enabled: z.boolean().optional(),
    rate_limits: rateLimitsSchema.nullable().optional(),
    usage_limits: usageLimitsSchema.nullable().optional(),
  })
  .strict();

export type WorkspaceEntryInput = z.output<typeof workspaceEntryInput>;

const workspacesInput = z.array(workspaceEntryInput).max(1000);

const defaultProvider = {
  /** Default true: every workspace named (and enabled) gets a provider of this integration. */
  create_default_provider: z.boolean().optional(),
  /** Slug of those providers; default: the integration's slug. */
  default_provider_slug: entitySlugSchema.optional(),
};

/** Credential fields that hold one secret string (custom headers and key files are stored, not mapped). */
export const MAPPABLE_FIELDS = [
  'api_key',
  'client_secret',
  'aws_access_key_id',
  'aws_secret_access_key',
  'aws_session_token',
] as const;

export const secretMappingsInput = z
  .array(
    z
      .object({
        field: z.enum(MAPPABLE_FIELDS),
        secret_reference_id: idOrSlug,
        key: z.string().min(1).max(255).optional(),
      })
      .strict(),
  )
  .max(MAPPABLE_FIELDS.length)
  .refine((m) => new Set(m.map((e) => e.field)).size === m.length, 'each field may be mapped once');

export type SecretMappingsInput = z.output<typeof secretMappingsInput>;

export const createIntegrationBody = z
  .object({
    name: entityNameSchema,
    slug: entitySlugSchema.optional(),
    description: z.string().max(1024).optional(),
    ai_provider: z.enum(AI_PROVIDERS),
    credentials: credentialsInput.optional(),
    /** Credential fields taken from secret references instead of `credentials` (docs/admin-api/secret-references.md). */
    secret_mappings: secretMappingsInput.optional(),
    options: optionsInput.optional(),
    allow_all_workspaces: z.boolean().optional(),
    workspaces: workspacesInput.optional(),
    allowed_models: allowedModelsSchema.optional(),
    rate_limits: rateLimitsSchema.optional(),
    usage_limits: usageLimitsSchema.optional(),
    tags: tagsSchema.optional(),
    ...defaultProvider,
  })
  .strict();

/** `ai_provider` never changes: providers and envelopes were made for it. */
export const updateIntegrationBody = z
  .object({
    name: entityNameSchema.optional(),
    slug: entitySlugSchema.optional(),
    description: z.string().max(1024).optional(),
    status: z.enum(['active', 'disabled']).optional(),
    credentials: credentialsInput.nullable().optional(),
    /** Replaces the mappings; `[]` keeps the last resolved values as stored credentials. */
    secret_mappings: secretMappingsInput.optional(),
    options: optionsInput.optional(),
    allow_all_workspaces: z.boolean().optional(),
    allowed_models: allowedModelsSchema.optional(),
    rate_limits: rateLimitsSchema.nullable().optional(),
    usage_limits: usageLimitsSchema.nullable().optional(),
    tags: tagsSchema.optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'give at least one field to change');

/** Upserts the named workspaces' entries; workspaces not named keep theirs. */
export const updateWorkspacesBody = z
  .object({
    allow_all_workspaces: z.boolean().optional(),
    workspaces: workspacesInput,
    ...defaultProvider,
  })
  .strict();

export const integrationParams = z.object({ integrationId: idOrSlug });

export const listIntegrationsQuery = z
  .object({
    ...pageQuery,
    ai_provider: csvEnum(AI_PROVIDERS).optional(),
    status: csvEnum(['active', 'disabled']).optional(),
    /** Integrations this workspace may use (id or slug). */
    workspace_id: idOrSlug.optional(),
    tags: tagFilterSchema.optional(),
  })
  .strict();

export type CreateIntegrationBody = z.output<typeof createIntegrationBody>;
export type UpdateIntegrationBody = z.output<typeof updateIntegrationBody>;
export type ListIntegrationsQuery = z.output<typeof listIntegrationsQuery>;

export const integrationWorkspaceSchema = z.object({
  id: z.uuid(),
  object: z.literal('integration-workspace'),
  enabled: z.boolean(),
  rate_limits: z.array(rateLimitOut),
  usage_limits: z.array(usageLimitOut),
});

export const integrationSchema = z.object({
  id: z.uuid(),
  object: z.literal('integration'),
  organisation_id: z.uuid(),
  name: z.string(),
  slug: z.string(),
  description: z.string(),
  ai_provider: z.enum(AI_PROVIDERS),
  status: z.enum(['active', 'disabled']),
  /** Masked (`****abcd`); null when the integration has none. */
  credentials: z.record(z.string(), z.unknown()).nullable(),
  options: z.record(z.string(), z.unknown()),
  allow_all_workspaces: z.boolean(),
  workspaces: z.array(integrationWorkspaceSchema),
  allowed_models: z.array(z.string()),
  rate_limits: z.array(rateLimitOut),
  usage_limits: z.array(usageLimitOut),
  tags: z.record(z.string(), z.string()),
  secret_mappings: secretMappingsOut,
  /** Where credentials come from secret references: the last resolution. */
  secrets: secretStateOut,
  created_at: z.string(),
  last_updated_at: z.string(),
});

export const integrationListSchema = listSchema(integrationSchema);
export const integrationWorkspaceListSchema = listSchema(integrationWorkspaceSchema);

/** `Prod OpenAI (EU)` -> `prod-openai-eu`; integration slugs may be as long as their names. */
export function slugFromName(name: string, fallback: string): string {
  return deriveSlug(name, fallback, 255);
}
