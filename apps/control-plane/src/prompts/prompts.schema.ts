// Request and response schemas of prompts, prompt partials, their versions, labels and collections.
// Templates are checked by @aigw/prompt-template (prompts.templates.ts), so here a template is a string.
import { z } from 'zod';
import { idOrSlug, listSchema, pageQuery, statusAndNameQuery, workspaceLookupQuery } from '../http/list.js';
import { entityNameSchema, entitySlugSchema } from '../integrations/integrations.schema.js';

/** Templates up to 100k characters: every version travels to every gateway in the snapshot. */
export const MAX_TEMPLATE_LENGTH = 100_000;

const template = z
  .string()
  .min(1)
  .max(MAX_TEMPLATE_LENGTH)
  .describe(
    'Mustache template: plain text (one user message) or a JSON array of {role, content} messages; partials as {{> partial-slug}}',
  );
const jsonObject = z.record(z.string(), z.unknown());
/** `@<provider slug>` of the workspace, or a provider name (the request then brings its credential). */
const providerRef = z
  .string()
  .max(256)
  .regex(/^@?[a-z0-9][a-z0-9_.-]*$/, 'must be @<provider slug> or a provider name');
const description = z.string().max(1024);
const version = z.coerce.number().int().min(1).max(2_147_483_647);
/** Label names are slugs: `slug@<label>` addresses them in requests. */
export const labelName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'must be lowercase letters, digits, "-" or "_" (max 63)');

const promptVersionFields = {
  string: template.optional(),
  model: z.string().min(1).max(256).optional(),
  provider: providerRef.optional(),
  parameters: jsonObject.describe('chat-completion parameters: temperature, max_tokens, ...').optional(),
  variables: jsonObject.describe('defaults of the template variables, by name').optional(),
  metadata: jsonObject.optional(),
  version_description: description.optional(),
};

export const createPromptBody = z
  .object({
    name: entityNameSchema,
    /** Default: derived from the name, made unique among the workspace's prompts. */
    slug: entitySlugSchema.max(255).optional(),
    /** Required for organisation-level callers; workspace-bound callers default to theirs. */
    workspace_id: idOrSlug.optional(),
    collection_id: idOrSlug.optional(),
    ...promptVersionFields,
    string: template,
  })
  .strict();

/**
 * Version fields make a new version (`string` then required), or with `patch: true` change the latest
 * version in place, missing fields kept from it (spec 4.5). `name`, `collection_id`, `status` change
 * the prompt without a version.
 */
export const updatePromptBody = z
  .object({
    name: entityNameSchema.optional(),
    collection_id: idOrSlug.nullable().optional(),
    status: z.enum(['active', 'archived']).optional(),
    patch: z.boolean().default(false),
    ...promptVersionFields,
  })
  .strict()
  .refine((b) => Object.keys(b).some((k) => k !== 'patch'), 'give at least one field to change');

export const createPartialBody = z
  .object({
    name: entityNameSchema,
    slug: entitySlugSchema.max(255).optional(),
    workspace_id: idOrSlug.optional(),
    string: template,
    version_description: description.optional(),
  })
  .strict();

export const updatePartialBody = z
  .object({
    name: entityNameSchema.optional(),
    status: z.enum(['active', 'archived']).optional(),
    patch: z.boolean().default(false),
    string: template.optional(),
    version_description: description.optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).some((k) => k !== 'patch'), 'give at least one field to change');

export const publishBody = z.object({ version }).strict();
export const labelAssignBody = z.object({ version }).strict();

export const promptParams = z.object({ promptId: idOrSlug });
export const promptVersionParams = z.object({ promptId: idOrSlug, version });
export const promptLabelParams = z.object({ promptId: idOrSlug, label: idOrSlug });
/** `id`, `slug`, `slug@label` or `slug@version`, as `/v1/prompts/{id}/completions` takes it. */
export const promptRefParams = z.object({
  promptId: z
    .string()
    .max(320)
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9_-]*(@[A-Za-z0-9_-]+)?$/,
      'must be an id, a slug, slug@label or slug@version',
    ),
});

export const renderBody = z
  .object({ variables: jsonObject.optional() })
  .catchall(z.unknown())
  .describe('variables, and chat-completion parameters that override the prompt’s (stream, max_tokens, ...)');

export const lookupQuery = workspaceLookupQuery;

export const listPromptsQuery = z
  .object({
    ...pageQuery,
    workspace_id: idOrSlug.optional(),
    collection_id: idOrSlug.optional(),
    ...statusAndNameQuery,
  })
  .strict();
export const listPartialsQuery = z
  .object({ ...pageQuery, workspace_id: idOrSlug.optional(), ...statusAndNameQuery })
  .strict();
export const listVersionsQuery = z.object({ ...pageQuery, workspace_id: idOrSlug.optional() }).strict();

const creator = {
  created_by_user_id: z.uuid().nullable(),
  created_by_api_key_id: z.uuid().nullable(),
  created_at: z.string(),
  last_updated_at: z.string(),
};

export const promptVersionSchema = z.object({
  object: z.literal('prompt_version'),
  prompt_id: z.uuid(),
  version: z.number().int(),
  string: z.string(),
  model: z.string().nullable(),
  provider: z.string().nullable(),
  parameters: jsonObject,
  variables: jsonObject,
  metadata: jsonObject,
  description: z.string().nullable(),
  /** Labels pointing at this version. */
  labels: z.array(z.string()),
  ...creator,
});

const promptCommon = {
  id: z.uuid(),
  organisation_id: z.uuid(),
  workspace_id: z.uuid(),
  name: z.string(),
  slug: z.string(),
  status: z.enum(['active', 'archived']),
  latest_version: z.number().int(),
  /** The published version. */
  default_version: z.number().int(),
  labels: z.record(z.string(), z.number().int()),
  ...creator,
};

export const promptSummarySchema = z.object({
  ...promptCommon,
  object: z.literal('prompt'),
  collection_id: z.uuid().nullable(),
});
/** One prompt with its published version. */
export const promptSchema = promptSummarySchema.extend({ version: promptVersionSchema });
export const promptListSchema = listSchema(promptSummarySchema);
export const promptVersionListSchema = listSchema(promptVersionSchema);

export const partialSummarySchema = z.object({ ...promptCommon, object: z.literal('prompt_partial') });
export const partialSchema = partialSummarySchema.extend({ version: promptVersionSchema });
export const partialListSchema = listSchema(partialSummarySchema);

export const renderSchema = z.object({
  object: z.literal('prompt_render'),
  prompt_id: z.uuid(),
  version: z.number().int(),
  label: z.string().nullable(),
  /** The chat-completions body the prompt makes: model, parameters, overrides, rendered messages. */
  data: jsonObject,
});

// Collections -------------------------------------------------------------------------------------

export const createCollectionBody = z
  .object({
    name: entityNameSchema,
    slug: entitySlugSchema.max(255).optional(),
    workspace_id: idOrSlug.optional(),
    parent_collection_id: idOrSlug.optional(),
  })
  .strict();
export const updateCollectionBody = z
  .object({ name: entityNameSchema.optional(), parent_collection_id: idOrSlug.nullable().optional() })
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'give at least one field to change');
export const collectionParams = z.object({ collectionId: idOrSlug });
export const listCollectionsQuery = z
  .object({
    ...pageQuery,
    workspace_id: idOrSlug.optional(),
    parent_collection_id: idOrSlug.optional(),
  })
  .strict();
export const collectionSchema = z.object({
  id: z.uuid(),
  object: z.literal('collection'),
  organisation_id: z.uuid(),
  workspace_id: z.uuid(),
  parent_collection_id: z.uuid().nullable(),
  name: z.string(),
  slug: z.string(),
  ...creator,
});
export const collectionListSchema = listSchema(collectionSchema);

// Labels ------------------------------------------------------------------------------------------

export const createLabelBody = z
  .object({ name: labelName, workspace_id: idOrSlug.optional(), description: description.optional() })
  .strict();
export const updateLabelBody = z.object({ description: description.nullable() }).strict();
export const labelParams = z.object({ labelId: idOrSlug });
export const listLabelsQuery = z.object({ ...pageQuery, workspace_id: idOrSlug.optional() }).strict();
export const labelSchema = z.object({
  id: z.uuid(),
  object: z.literal('label'),
  organisation_id: z.uuid(),
  workspace_id: z.uuid(),
  name: z.string(),
  description: z.string().nullable(),
  ...creator,
});
export const labelListSchema = listSchema(labelSchema);
