// Workspaces (spec 4.5, 5.3 "create and manage workspaces": organisation-level callers only; a
// workspace-bound caller may read its own). DELETE archives: keys and logs keep referring to it.
import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { conflict, forbidden, invalid, notFound } from '../api-errors.js';
import { roleAtLeast } from '../auth/principal.js';
import { visibleWorkspace } from '../auth/visibility.js';
import { readPage } from '../db/page-read.js';
import type { ControlDatabase } from '../db/schema.js';
import { listSchema, pageBounds, toList } from '../http/list.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { slugFromName } from '../http/slug.js';
import { resetEntityLimitAlerts } from '../policies/policy-alerts.js';
import { fillCurrentUsage } from '../usage/current-usage.js';
import {
  organisationAccess,
  type WorkspaceRow,
  workspaceEntity,
  workspaceSchema,
  workspaceToApi,
  workspaceUsage,
} from './workspaces.entity.js';
import {
  createWorkspaceBody,
  listWorkspacesQuery,
  updateWorkspaceBody,
  workspaceParams,
} from './workspaces.schema.js';
import { applySettings, type StoredSettings } from './workspaces.settings.js';
import { uniqueSlug } from './workspaces.slug.js';

const TAG = 'Workspaces';

function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: unknown }).code === '23505';
}

function slugTaken(slug: string) {
  return conflict(`a workspace with slug "${slug}" already exists in the organisation`, 'body.slug');
}

function settingsOrThrow(
  current: StoredSettings,
  patch: Parameters<typeof applySettings>[1],
): StoredSettings {
  const applied = applySettings(current, patch);
  if ('error' in applied) throw invalid(applied.error, applied.param);
  return applied.settings;
}

async function lockWorkspace(db: Kysely<ControlDatabase>, id: string): Promise<WorkspaceRow> {
  const row = await db
    .selectFrom('workspaces')
    .selectAll()
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw notFound('workspace');
  return row;
}

export const workspaceRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'post',
    path: '/workspaces',
    tag: TAG,
    summary: 'Create a workspace',
    scope: 'workspaces.create',
    level: 'organisation',
    minRole: 'admin',
    body: createWorkspaceBody,
    response: workspaceSchema,
    status: 201,
    audit: { action: 'workspaces.create', resourceType: 'workspace' },
    entity: { table: 'workspaces' },
    async handler({ principal, body, mutate }) {
      const id = randomUUID();
      const settings = settingsOrThrow({}, body.settings);
      return mutate({ resourceId: id, workspaceId: id }, async (tx) => {
        const orgId = principal.organisationId;
        const slug = body.slug ?? (await uniqueSlug(tx.db, orgId, slugFromName(body.name, 'workspace')));
        let row: WorkspaceRow;
        try {
          row = await tx.db
            .insertInto('workspaces')
            .values({
              id,
              organisation_id: orgId,
              name: body.name,
              slug,
              description: body.description ?? '',
              default_metadata: JSON.stringify(body.default_metadata ?? {}),
              settings: JSON.stringify(settings),
              usage_limits: JSON.stringify(body.usage_limits ?? []),
              rate_limits: JSON.stringify(body.rate_limits ?? []),
            })
            .returningAll()
            .executeTakeFirstOrThrow();
        } catch (err) {
          if (isUniqueViolation(err)) throw slugTaken(slug);
          throw err;
        }
        await tx.change(workspaceEntity(row));
        return workspaceToApi(row, await organisationAccess(tx.db, orgId));
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/workspaces',
    tag: TAG,
    summary: 'List workspaces',
    scope: 'workspaces.list',
    level: 'workspace',
    query: listWorkspacesQuery,
    response: listSchema(workspaceSchema),
    async handler(ctx) {
      const { db, principal, query } = ctx;
      const orgLevelAdmin = principal.workspaceId === null && roleAtLeast(principal.role, 'admin');
      if (query.status.includes('archived') && !orgLevelAdmin)
        throw forbidden('only organisation owners and admins may list archived workspaces');
      let filtered = db
        .selectFrom('workspaces')
        .where('organisation_id', '=', principal.organisationId)
        .where('status', 'in', query.status);
      if (principal.workspaceId !== null) filtered = filtered.where('id', '=', principal.workspaceId);
      if (query.name !== undefined) filtered = filtered.where('name', '=', query.name);
      const { limit, offset } = pageBounds(query);
      const [page, access] = await Promise.all([
        readPage(db, filtered, (q) =>
          q.selectAll().orderBy('created_at').orderBy('id').limit(limit).offset(offset),
        ),
        organisationAccess(db, principal.organisationId),
      ]);
      const workspaces = page.rows.map((r) => workspaceToApi(r, access));
      await fillCurrentUsage(ctx, workspaces.map(workspaceUsage));
      return toList(workspaces, page.total);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/workspaces/:workspaceId',
    tag: TAG,
    summary: 'Get a workspace',
    scope: 'workspaces.read',
    level: 'workspace',
    params: workspaceParams,
    response: workspaceSchema,
    entity: { table: 'workspaces' },
    async handler(ctx) {
      const { db, principal, params } = ctx;
      const row = await visibleWorkspace(db, principal, params.workspaceId);
      const workspace = workspaceToApi(row, await organisationAccess(db, principal.organisationId));
      await fillCurrentUsage(ctx, [workspaceUsage(workspace)]);
      return workspace;
    },
  }),
  defineRoute({
    method: 'put',
    path: '/workspaces/:workspaceId',
    tag: TAG,
    summary: 'Update a workspace',
    scope: 'workspaces.update',
    level: 'organisation',
    minRole: 'admin',
    params: workspaceParams,
    body: updateWorkspaceBody,
    response: workspaceSchema,
    audit: { action: 'workspaces.update', resourceType: 'workspace' },
    entity: { table: 'workspaces' },
    async handler(ctx) {
      const { db, principal, params, body, mutate } = ctx;
      const { id } = await visibleWorkspace(db, principal, params.workspaceId);
      const updated = await mutate({ resourceId: id, workspaceId: id }, async (tx) => {
        const current = await lockWorkspace(tx.db, id);
        const settings = settingsOrThrow(current.settings as StoredSettings, body.settings);
        const slug = body.slug ?? current.slug;
        let row: WorkspaceRow;
        try {
          row = await tx.db
            .updateTable('workspaces')
            .set({
              name: body.name ?? current.name,
              slug,
              description: body.description ?? current.description,
              status: body.status ?? current.status,
              default_metadata: JSON.stringify(body.default_metadata ?? current.default_metadata),
              settings: JSON.stringify(settings),
              usage_limits: JSON.stringify(body.usage_limits ?? current.usage_limits),
              rate_limits: JSON.stringify(body.rate_limits ?? current.rate_limits),
              version: sql<number>`version + 1`,
              updated_at: new Date(),
            })
            .where('id', '=', id)
            .returningAll()
            .executeTakeFirstOrThrow();
        } catch (err) {
          if (isUniqueViolation(err)) throw slugTaken(slug);
          throw err;
        }
        await resetEntityLimitAlerts(
          tx.db,
          { kind: 'workspace', id },
          current.usage_limits,
          row.usage_limits,
        );
        await tx.change(workspaceEntity(row));
        return workspaceToApi(row, await organisationAccess(tx.db, principal.organisationId));
      });
      await fillCurrentUsage(ctx, [workspaceUsage(updated)]);
      return updated;
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/workspaces/:workspaceId',
    tag: TAG,
    summary: 'Archive a workspace',
    scope: 'workspaces.delete',
    level: 'organisation',
    minRole: 'admin',
    params: workspaceParams,
    response: workspaceSchema,
    audit: { action: 'workspaces.delete', resourceType: 'workspace' },
    entity: { table: 'workspaces' },
    async handler({ db, principal, params, mutate }) {
      const { id } = await visibleWorkspace(db, principal, params.workspaceId);
      return mutate({ resourceId: id, workspaceId: id }, async (tx) => {
        let row = await lockWorkspace(tx.db, id);
        if (row.status !== 'archived') {
          row = await tx.db
            .updateTable('workspaces')
            .set({ status: 'archived', version: sql<number>`version + 1`, updated_at: new Date() })
            .where('id', '=', id)
            .returningAll()
            .executeTakeFirstOrThrow();
          await tx.change(workspaceEntity(row));
        }
        return workspaceToApi(row, await organisationAccess(tx.db, principal.organisationId));
      });
    },
  }),
];
