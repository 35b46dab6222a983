// Request and response schemas of the deployment routes (spec 4.5: create, list with `type`, get,
// update; slugs, a config, a workspace restriction).
import { z } from 'zod';
import {
  csvEnum,
  idOrSlug,
  listSchema,
  pageQuery,
  statusAndNameQuery,
  workspaceLookupQuery,
} from '../http/list.js';
import { entityNameSchema, entitySlugSchema } from '../integrations/integrations.schema.js';

export const DEPLOYMENT_TYPES = ['production', 'non-production'] as const;

const description = z.string().trim().max(2000);

export const createDeploymentBody = z
  .object({
    name: entityNameSchema,
    /** Default: derived from the name, made unique in the workspace. */
    slug: entitySlugSchema.optional(),
    description: description.optional(),
    type: z.enum(DEPLOYMENT_TYPES),
    /** Required for organisation-level callers; workspace-bound callers default to theirs. */
    workspace_id: idOrSlug.optional(),
    /** A saved config of the same workspace, by id or slug. */
    config_id: idOrSlug,
  })
  .strict();

/** `config_id` moves the deployment to another saved config; `status` archives or restores it. */
export const updateDeploymentBody = z
  .object({
    name: entityNameSchema.optional(),
    description: description.nullable().optional(),
    type: z.enum(DEPLOYMENT_TYPES).optional(),
    config_id: idOrSlug.optional(),
    status: z.enum(['active', 'archived']).optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'give at least one field to change');

export const deploymentParams = z.object({ deploymentId: idOrSlug });
export const deploymentLookupQuery = workspaceLookupQuery;

export const listDeploymentsQuery = z
  .object({
    ...pageQuery,
    workspace_id: idOrSlug.optional(),
    type: csvEnum(DEPLOYMENT_TYPES).optional(),
    ...statusAndNameQuery,
  })
  .strict();

export const deploymentSchema = z.object({
  id: z.uuid(),
  object: z.literal('deployment'),
  organisation_id: z.uuid(),
  workspace_id: z.uuid(),
  name: z.string(),
  slug: z.string(),
  description: z.string().nullable(),
  type: z.enum(DEPLOYMENT_TYPES),
  status: z.enum(['active', 'archived']),
  config_id: z.uuid(),
  created_by_user_id: z.uuid().nullable(),
  created_by_api_key_id: z.uuid().nullable(),
  created_at: z.string(),
  last_updated_at: z.string(),
});

export const deploymentListSchema = listSchema(deploymentSchema);
