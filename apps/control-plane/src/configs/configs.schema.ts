// Request and response schemas of the config routes. The config object itself is validated by
// @aigw/config-schema (configs.validate.ts), so here it is only "a JSON object".
import { z } from 'zod';
import { idOrSlug, listSchema, pageQuery, statusAndNameQuery, workspaceLookupQuery } from '../http/list.js';
import { entityNameSchema, entitySlugSchema } from '../integrations/integrations.schema.js';

const configObject = z
  .record(z.string(), z.unknown())
  .describe('The gateway config object (docs/config.md); stored as sent, validated like an inline config');

export const createConfigBody = z
  .object({
    name: entityNameSchema,
    /** Default: derived from the name, made unique in the workspace. */
    slug: entitySlugSchema.optional(),
    /** Required for organisation-level callers; workspace-bound callers default to theirs. */
    workspace_id: idOrSlug.optional(),
    config: configObject,
  })
  .strict();

/** A new `config` becomes a new version; `status` archives (gateways stop resolving it) or restores. */
export const updateConfigBody = z
  .object({
    name: entityNameSchema.optional(),
    config: configObject.optional(),
    status: z.enum(['active', 'archived']).optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'give at least one field to change');

export const configParams = z.object({ configId: idOrSlug });

export const configVersionParams = z.object({
  configId: idOrSlug,
  version: z.coerce.number().int().min(1).max(2_147_483_647),
});

export const configLookupQuery = workspaceLookupQuery;

export const listConfigsQuery = z
  .object({
    ...pageQuery,
    workspace_id: idOrSlug.optional(),
    ...statusAndNameQuery,
  })
  .strict();

export const listVersionsQuery = z.object({ ...pageQuery, workspace_id: idOrSlug.optional() }).strict();

const common = {
  id: z.uuid(),
  object: z.literal('config'),
  organisation_id: z.uuid(),
  workspace_id: z.uuid(),
  name: z.string(),
  slug: z.string(),
  status: z.enum(['active', 'archived']),
  /** The latest version number. */
  version: z.number().int(),
  created_by_user_id: z.uuid().nullable(),
  created_by_api_key_id: z.uuid().nullable(),
  created_at: z.string(),
  last_updated_at: z.string(),
};

/** Lists leave the config object out (up to 1 MiB each): GET one config or version for it. */
export const configSummarySchema = z.object(common);
export const configSchema = z.object({ ...common, config: z.record(z.string(), z.unknown()) });
export const configListSchema = listSchema(configSummarySchema);

const versionCommon = {
  object: z.literal('config_version'),
  config_id: z.uuid(),
  version: z.number().int(),
  created_by_user_id: z.uuid().nullable(),
  created_by_api_key_id: z.uuid().nullable(),
  created_at: z.string(),
};

export const configVersionSchema = z.object({ ...versionCommon, config: z.record(z.string(), z.unknown()) });
export const configVersionListSchema = listSchema(z.object(versionCommon));
