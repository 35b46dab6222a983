// Organisation settings (spec 5.3 "manage organisation settings": organisation-level callers only).
import { sql } from 'kysely';
import { z } from 'zod';
import { notFound } from '../api-errors.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { mergeOverrides, organisationAccessSchema } from './access-settings.js';
import { organisationEntity, organisationToApi } from './organisations.entity.js';

const organisationSchema = z.object({
  id: z.uuid(),
  object: z.literal('organisation'),
  name: z.string(),
  slug: z.string(),
  status: z.enum(['active', 'disabled']),
  settings: z.record(z.string(), z.boolean()),
  default_metadata: z.record(z.string(), z.string()),
  created_at: z.string(),
  last_updated_at: z.string(),
});

export const metadataSchema = z
  .record(z.string().min(1).max(128), z.string().max(1024))
  .refine((m) => Object.keys(m).length <= 64, 'at most 64 keys');

const updateBody = z
  .object({
    name: z.string().trim().min(1).max(255).optional(),
    settings: organisationAccessSchema.optional(),
    default_metadata: metadataSchema.optional(),
  })
  .strict();

export const organisationRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'get',
    path: '/organisation',
    tag: 'Organisation',
    summary: 'Get the organisation',
    scope: 'organisation.read',
    level: 'organisation',
    response: organisationSchema,
    entity: { table: 'organisations' },
    async handler({ db, principal }) {
      const row = await db
        .selectFrom('organisations')
        .selectAll()
        .where('id', '=', principal.organisationId)
        .executeTakeFirst();
      if (!row) throw notFound('organisation');
      return organisationToApi(row);
    },
  }),
  defineRoute({
    method: 'put',
    path: '/organisation',
    tag: 'Organisation',
    summary: 'Update organisation settings',
    scope: 'organisation.update',
    level: 'organisation',
    minRole: 'admin',
    body: updateBody,
    response: organisationSchema,
    audit: { action: 'organisation.update', resourceType: 'organisation' },
    entity: { table: 'organisations' },
    async handler({ principal, body, mutate }) {
      return mutate({ resourceId: principal.organisationId, workspaceId: null }, async (tx) => {
        const current = await tx.db
          .selectFrom('organisations')
          .selectAll()
          .where('id', '=', principal.organisationId)
          .forUpdate()
          .executeTakeFirst();
        if (!current) throw notFound('organisation');
        const access = mergeOverrides(
          (current.settings.access ?? {}) as Record<string, boolean>,
          body.settings ?? {},
        );
        const row = await tx.db
          .updateTable('organisations')
          .set({
            name: body.name ?? current.name,
            settings: JSON.stringify({ ...current.settings, access }),
            default_metadata: JSON.stringify(body.default_metadata ?? current.default_metadata),
            version: sql<number>`version + 1`,
            updated_at: new Date(),
          })
          .where('id', '=', principal.organisationId)
          .returningAll()
          .executeTakeFirstOrThrow();
        await tx.change(organisationEntity(row));
        return organisationToApi(row);
      });
    },
  }),
];
