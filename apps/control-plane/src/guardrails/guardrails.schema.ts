// Request and response schemas of the guardrail routes.
import { z } from 'zod';
import { idOrSlug, listSchema, pageQuery, statusAndNameQuery, workspaceLookupQuery } from '../http/list.js';
import { entityNameSchema, entitySlugSchema } from '../integrations/integrations.schema.js';
import { actionsSchema, checksSchema } from './guardrails.checks.js';

export const createGuardrailBody = z
  .object({
    name: entityNameSchema,
    /** Default: derived from the name, made unique. */
    slug: entitySlugSchema.optional(),
    /** Omitted by an organisation-level caller: an organisation-level guardrail. */
    workspace_id: idOrSlug.optional(),
    checks: checksSchema,
    actions: actionsSchema.optional(),
    async: z.boolean().optional(),
  })
  .strict();

/** `checks` and `actions` replace the stored ones whole; the workspace never changes. */
export const updateGuardrailBody = z
  .object({
    name: entityNameSchema.optional(),
    slug: entitySlugSchema.optional(),
    status: z.enum(['active', 'archived']).optional(),
    checks: checksSchema.optional(),
    actions: actionsSchema.optional(),
    async: z.boolean().optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'give at least one field to change');

export const guardrailParams = z.object({ guardrailId: idOrSlug });

export const guardrailLookupQuery = workspaceLookupQuery;

export const listGuardrailsQuery = z
  .object({
    ...pageQuery,
    /** The guardrails usable in this workspace: its own and the organisation's. */
    workspace_id: idOrSlug.optional(),
    ...statusAndNameQuery,
  })
  .strict();

export type CreateGuardrailBody = z.output<typeof createGuardrailBody>;
export type UpdateGuardrailBody = z.output<typeof updateGuardrailBody>;

const feedbackOut = z.object({ value: z.number(), weight: z.number() });

export const guardrailSchema = z.object({
  id: z.uuid(),
  object: z.literal('guardrail'),
  organisation_id: z.uuid(),
  /** Null for an organisation-level guardrail. */
  workspace_id: z.uuid().nullable(),
  name: z.string(),
  slug: z.string(),
  status: z.enum(['active', 'archived']),
  checks: z.array(z.object({ id: z.string(), parameters: z.record(z.string(), z.unknown()) })),
  actions: z.object({
    deny: z.boolean(),
    on_fail: z.object({ feedback: feedbackOut.optional() }).optional(),
    on_success: z.object({ feedback: feedbackOut.optional() }).optional(),
  }),
  async: z.boolean(),
  created_by_user_id: z.uuid().nullable(),
  created_by_api_key_id: z.uuid().nullable(),
  created_at: z.string(),
  last_updated_at: z.string(),
});

export const guardrailListSchema = listSchema(guardrailSchema);
