// Request and response schemas of the legacy virtual key routes (same records as providers).
import { z } from 'zod';
import { csvEnum, idOrSlug, listSchema, pageQuery } from '../http/list.js';
import { secretSchema } from '../integrations/credentials.js';
import {
  entityNameSchema,
  entitySlugSchema,
  secretMappingsInput,
} from '../integrations/integrations.schema.js';
import { AI_PROVIDERS } from '../integrations/provider-types.js';
import { secretMappingsOut, secretStateOut } from '../integrations/secret-state.js';
import { rateLimitOut, usageLimitOut } from '../limits/limits.schema.js';
import { providerLimitChangeFields, providerLimitFields } from '../providers/providers.schema.js';

const looseObject = z.record(z.string(), z.unknown());

export const createVirtualKeyBody = z
  .object({
    /** Required for organisation-level callers; workspace-bound callers default to theirs. */
    workspace_id: idOrSlug.optional(),
    name: entityNameSchema,
    /** Default: derived from the name. */
    slug: entitySlugSchema.optional(),
    /** The provider type (`openai`, `bedrock`, ...). */
    provider: z.enum(AI_PROVIDERS),
    /** Shorthand for `credentials: {api_key}`. Write-only. */
    key: secretSchema.optional(),
    credentials: looseObject.optional(),
    /** Credential fields taken from secret references instead of `key`/`credentials` (docs/admin-api/secret-references.md). */
    secret_mappings: secretMappingsInput.optional(),
    options: looseObject.optional(),
    ...providerLimitFields,
  })
  .strict();

export const updateVirtualKeyBody = z
  .object({
    name: entityNameSchema.optional(),
    slug: entitySlugSchema.optional(),
    key: secretSchema.optional(),
    credentials: looseObject.nullable().optional(),
    /** Replaces the mappings; `[]` keeps the last resolved values as stored credentials. */
    secret_mappings: secretMappingsInput.optional(),
    options: looseObject.optional(),
    ...providerLimitChangeFields,
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'give at least one field to change');

export const virtualKeyParams = z.object({ virtualKeyId: z.uuid() });

export const listVirtualKeysQuery = z
  .object({
    ...pageQuery,
    workspace_id: idOrSlug.optional(),
    provider: csvEnum(AI_PROVIDERS).optional(),
    status: csvEnum(['active', 'expired', 'disabled', 'archived']).optional(),
  })
  .strict();

export const virtualKeySchema = z.object({
  id: z.uuid(),
  object: z.literal('virtual-key'),
  organisation_id: z.uuid(),
  workspace_id: z.uuid(),
  name: z.string(),
  slug: z.string(),
  note: z.string(),
  provider: z.enum(AI_PROVIDERS),
  /** The provider record this key is (the same id). */
  provider_id: z.uuid(),
  integration_id: z.uuid().nullable(),
  /** Masked api key (`****abcd`); null for other credential shapes or integration credentials. */
  key: z.string().nullable(),
  credentials: z.record(z.string(), z.unknown()).nullable(),
  options: z.record(z.string(), z.unknown()),
  /** Credential fields taken from secret references (empty for none). */
  secret_mappings: secretMappingsOut,
  /** Where credentials come from secret references: the last resolution. */
  secrets: secretStateOut,
  status: z.enum(['active', 'exhausted', 'expired', 'disabled', 'archived']),
  allowed_models: z.array(z.string()),
  rate_limits: z.array(rateLimitOut),
  usage_limits: z.array(usageLimitOut),
  expires_at: z.string().nullable(),
  created_at: z.string(),
  last_updated_at: z.string(),
});

export const virtualKeyListSchema = listSchema(virtualKeySchema);
