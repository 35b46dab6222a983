// Request schemas of the workspace routes: strict bodies, validated filters, id-or-slug paths.
import { z } from 'zod';
import { idOrSlug, pageQuery, statusAndNameQuery } from '../http/list.js';
import { rateLimitsSchema, usageLimitsSchema } from '../limits/limits.schema.js';
import { metadataSchema } from '../organisations/organisations.routes.js';
import { settingsInput } from './workspaces.settings.js';
import { slugSchema } from './workspaces.slug.js';

export const workspaceParams = z.object({ workspaceId: idOrSlug });

const fields = {
  name: z.string().trim().min(1).max(255),
  slug: slugSchema,
  description: z.string().max(1024),
  default_metadata: metadataSchema,
  settings: settingsInput,
  usage_limits: usageLimitsSchema,
  rate_limits: rateLimitsSchema,
};

export const createWorkspaceBody = z
  .object({
    name: fields.name,
    slug: fields.slug.optional(),
    description: fields.description.optional(),
    default_metadata: fields.default_metadata.optional(),
    settings: fields.settings.optional(),
    usage_limits: fields.usage_limits.optional(),
    rate_limits: fields.rate_limits.optional(),
  })
  .strict();

/** Every field optional; `status: "active"` un-archives, `"archived"` archives like DELETE. */
export const updateWorkspaceBody = z
  .object({
    name: fields.name.optional(),
    slug: fields.slug.optional(),
    description: fields.description.optional(),
    status: z.enum(['active', 'archived']).optional(),
    default_metadata: fields.default_metadata.optional(),
    settings: fields.settings.optional(),
    usage_limits: fields.usage_limits.optional(),
    rate_limits: fields.rate_limits.optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'give at least one field to change');

export const listWorkspacesQuery = z.object({
  ...pageQuery,
  ...statusAndNameQuery,
});
