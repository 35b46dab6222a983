// Request and response schemas of the API key routes (they also generate the OpenAPI document).
import { z } from 'zod';
import { ALL_SCOPES, isScope } from '../auth/scopes.js';
import { csvEnum, idOrSlug, listSchema, pageQuery } from '../http/list.js';
import { rateLimitsSchema, usageLimitOut, usageLimitsSchema } from '../limits/limits.schema.js';
import { metadataSchema } from '../organisations/organisations.routes.js';

/** Catalogue scopes only (unknown ones are 400), de-duplicated, at least one. */
export const scopesSchema = z
  .array(z.string().max(64).refine(isScope, 'unknown scope (see the scope catalogue)'))
  .min(1)
  .max(ALL_SCOPES.length)
  .transform((scopes) => [...new Set(scopes)]);

const futureInstant = z.iso
  .datetime({ offset: true })
  .refine((v) => Date.parse(v) > Date.now(), 'must be in the future')
  .transform((v) => new Date(v));

const defaultsSchema = z
  .object({
    metadata: metadataSchema.optional(),
    config_id: idOrSlug.optional(),
    /** false: every request of the key runs `config_id` (it may not name another config). */
    allow_config_override: z.boolean().optional(),
  })
  .strict()
  .refine((d) => d.allow_config_override !== false || d.config_id !== undefined, {
    message: 'allow_config_override: false needs a config_id, the config every request then runs',
    path: ['allow_config_override'],
  });

const common = {
  name: z.string().trim().min(1).max(255),
  description: z.string().max(1024).optional(),
  scopes: scopesSchema,
  expires_at: futureInstant.optional(),
  rate_limits: rateLimitsSchema.optional(),
  usage_limits: usageLimitsSchema.optional(),
  defaults: defaultsSchema.optional(),
};

export const createAdminKeyBody = z.object(common).strict();

export const createServiceKeyBody = z.object({ ...common, workspace_id: idOrSlug }).strict();

export const createUserKeyBody = z
  .object({ ...common, workspace_id: idOrSlug, user_id: z.uuid().optional() })
  .strict();

export const updateKeyBody = z
  .object({
    name: common.name.optional(),
    description: z.string().max(1024).optional(),
    scopes: scopesSchema.optional(),
    status: z.enum(['active', 'disabled']).optional(),
    /** null: never expires (refused when the workspace sets a maximum expiry). */
    expires_at: futureInstant.nullable().optional(),
    rate_limits: rateLimitsSchema.nullable().optional(),
    usage_limits: usageLimitsSchema.nullable().optional(),
    defaults: defaultsSchema.optional(),
  })
  .strict();

export const apiKeyParams = z.object({ apiKeyId: z.uuid() });

export const listKeysQuery = z
  .object({
    ...pageQuery,
    workspace_id: idOrSlug.optional(),
    type: csvEnum(['admin', 'workspace', 'service']).optional(),
    status: csvEnum(['active', 'expired', 'disabled', 'archived']).optional(),
    user_id: z.uuid().optional(),
  })
  .strict();

export type CreateKeyBody = z.output<typeof createAdminKeyBody>;
export type UpdateKeyBody = z.output<typeof updateKeyBody>;
export type ListKeysQuery = z.output<typeof listKeysQuery>;

export const apiKeySchema = z.object({
  id: z.uuid(),
  object: z.literal('api-key'),
  type: z.enum(['admin', 'workspace', 'service']),
  name: z.string(),
  description: z.string(),
  organisation_id: z.uuid(),
  workspace_id: z.uuid().nullable(),
  user_id: z.uuid().nullable(),
  scopes: z.array(z.string()),
  status: z.enum(['active', 'expired', 'disabled', 'archived']),
  last4: z.string(),
  masked_key: z.string(),
  expires_at: z.string().nullable(),
  rate_limits: z.array(
    z.object({
      type: z.enum(['requests', 'tokens']),
      unit: z.enum(['rpm', 'rph', 'rpd']),
      value: z.number(),
    }),
  ),
  usage_limits: z.array(usageLimitOut),
  defaults: z.object({
    metadata: z.record(z.string(), z.string()),
    config_id: z.string().nullable(),
    allow_config_override: z.boolean(),
  }),
  created_by_user_id: z.uuid().nullable(),
  created_by_api_key_id: z.uuid().nullable(),
  created_at: z.string(),
  last_updated_at: z.string(),
  rotated_at: z.string().nullable(),
});

/** Creation and rotation: the raw key, shown this once. */
export const apiKeyWithSecretSchema = apiKeySchema.extend({ key: z.string() });

export const apiKeyListSchema = listSchema(apiKeySchema);
