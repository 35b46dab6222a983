// GET /me: who the credential is (spec 5.3's level, role and scopes). The console reads it after
// sign-in to show only the pages the caller may use; the API still checks every call itself.
import { z } from 'zod';
import { defineRoute, type RouteDefinition } from '../http/route.js';

const meSchema = z.object({
  object: z.literal('caller'),
  via: z.enum(['api_key', 'jwt']),
  organisation_id: z.uuid(),
  organisation_name: z.string(),
  workspace: z.object({ id: z.uuid(), slug: z.string(), name: z.string() }).nullable(),
  role: z.enum(['owner', 'admin', 'manager', 'member']),
  scopes: z.array(z.string()),
  api_key_id: z.string().nullable(),
  user_id: z.string().nullable(),
  display_name: z.string(),
});

export const meRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'get',
    path: '/me',
    tag: 'Meta',
    summary: 'The calling key or token: its organisation, workspace, role and scopes',
    scope: null,
    level: 'workspace',
    response: meSchema,
    async handler({ db, principal }) {
      const organisation = await db
        .selectFrom('organisations')
        .select('name')
        .where('id', '=', principal.organisationId)
        .executeTakeFirstOrThrow();
      const workspace =
        principal.workspaceId === null
          ? null
          : ((await db
              .selectFrom('workspaces')
              .select(['id', 'slug', 'name'])
              .where('id', '=', principal.workspaceId)
              .executeTakeFirst()) ?? null);
      return {
        object: 'caller' as const,
        via: principal.via,
        organisation_id: principal.organisationId,
        organisation_name: organisation.name,
        workspace,
        role: principal.role,
        scopes: [...principal.scopes].sort(),
        api_key_id: principal.apiKeyId,
        user_id: principal.userId,
        display_name: principal.displayName,
      };
    },
  }),
];
