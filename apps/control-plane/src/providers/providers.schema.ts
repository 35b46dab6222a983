// Request and response schemas of the provider routes.
import { z } from 'zod';
import { csvEnum, idOrSlug, listSchema, pageQuery, workspaceLookupQuery } from '../http/list.js';
import {
  allowedModelsSchema,
  entityNameSchema,
  entitySlugSchema,
} from '../integrations/integrations.schema.js';
import { AI_PROVIDERS } from '../integrations/provider-types.js';
import { tagFilterSchema, tagsSchema } from '../integrations/tags.js';
import { rateLimitOut, rateLimitsSchema, usageLimitOut, usageLimitsSchema } from '../limits/limits.schema.js';

export const futureInstant = z.iso
  .datetime({ offset: true })
  .refine((v) => Date.parse(v) > Date.now(), 'must be in the future')
  .transform((v) => new Date(v));

export const noteSchema = z.string().max(1024);

/** Body fields of a new provider that a legacy virtual key takes too. */
export const providerLimitFields = {
  note: noteSchema.optional(),
  allowed_models: allowedModelsSchema.optional(),
  rate_limits: rateLimitsSchema.optional(),
  usage_limits: usageLimitsSchema.optional(),
  expires_at: futureInstant.optional(),
};

/** Their update counterparts; `status` toggles active/disabled and null clears a limit. */
export const providerLimitChangeFields = {
  note: noteSchema.optional(),
  status: z.enum(['active', 'disabled']).optional(),
  allowed_models: allowedModelsSchema.optional(),
  rate_limits: rateLimitsSchema.nullable().optional(),
  usage_limits: usageLimitsSchema.nullable().optional(),
  expires_at: futureInstant.nullable().optional(),
};

export const createProviderBody = z
  .object({
    /** Required for organisation-level callers; workspace-bound callers default to theirs. */
    workspace_id: idOrSlug.optional(),
    integration_id: idOrSlug,
    /** Default: the integration's name and slug. */
    name: entityNameSchema.optional(),
    slug: entitySlugSchema.optional(),
    ...providerLimitFields,
    tags: tagsSchema.optional(),
  })
  .strict();

/** The workspace and the integration never change. */
export const updateProviderBody = z
  .object({
    name: entityNameSchema.optional(),
    slug: entitySlugSchema.optional(),
    ...providerLimitChangeFields,
    tags: tagsSchema.optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'give at least one field to change');

/** A provider by id or slug; `workspace_id` (id or slug) picks one when a slug names several. */
export const providerParams = z.object({ providerId: idOrSlug });

export const providerLookupQuery = workspaceLookupQuery;

export const listProvidersQuery = z
  .object({
    ...pageQuery,
    workspace_id: idOrSlug.optional(),
    integration_id: idOrSlug.optional(),
    ai_provider: csvEnum(AI_PROVIDERS).optional(),
    status: csvEnum(['active', 'expired', 'disabled', 'archived']).optional(),
    tags: tagFilterSchema.optional(),
  })
  .strict();

export type CreateProviderBody = z.output<typeof createProviderBody>;
export type UpdateProviderBody = z.output<typeof updateProviderBody>;

export const providerSchema = z.object({
  id: z.uuid(),
  object: z.literal('provider'),
  organisation_id: z.uuid(),
  workspace_id: z.uuid(),
  /** Null for a legacy virtual key that holds its own credentials. */
  integration_id: z.uuid().nullable(),
  ai_provider: z.enum(AI_PROVIDERS),
  name: z.string(),
  slug: z.string(),
  note: z.string(),
  status: z.enum(['active', 'exhausted', 'expired', 'disabled', 'archived']),
  /** Own credentials (virtual keys only), masked; null when the integration's are used. */
  credentials: z.record(z.string(), z.unknown()).nullable(),
  options: z.record(z.string(), z.unknown()),
  allowed_models: z.array(z.string()),
  rate_limits: z.array(rateLimitOut),
  usage_limits: z.array(usageLimitOut),
  expires_at: z.string().nullable(),
  tags: z.record(z.string(), z.string()),
  created_by_user_id: z.uuid().nullable(),
  created_by_api_key_id: z.uuid().nullable(),
  created_at: z.string(),
  last_updated_at: z.string(),
});

export const providerListSchema = listSchema(providerSchema);
