// Workspace members (spec 5.3 "manage users and permissions": organisation-level callers change
// them; a workspace-bound caller may read its own workspace's). Every change is audited.
import { type Kysely, sql } from 'kysely';
import { z } from 'zod';
import { conflict, notFound, referenceNotFound } from '../api-errors.js';
import { apiKeyEntity } from '../api-keys/api-keys.entity.js';
import { visibleWorkspace } from '../auth/visibility.js';
import { readPage } from '../db/page-read.js';
import type { ControlDatabase } from '../db/schema.js';
import { csvEnum, idOrSlug, listSchema, pageBounds, pageQuery, toList, uuid } from '../http/list.js';
import { defineRoute, type MutationTx, type RouteDefinition } from '../http/route.js';
import {
  findMember,
  MEMBER_COLUMNS,
  type MemberRow,
  memberSchema,
  membersQuery,
  memberToApi,
  WORKSPACE_ROLES,
} from './workspace-members.entity.js';

const TAG = 'Workspace members';
const MAX_USERS_PER_CALL = 100;

const workspaceParams = z.object({ workspaceId: idOrSlug });
const memberParams = z.object({ workspaceId: idOrSlug, userId: uuid });

const addBody = z
  .object({
    users: z
      .array(z.object({ id: uuid, role: z.enum(WORKSPACE_ROLES) }).strict())
      .min(1)
      .max(MAX_USERS_PER_CALL)
      .refine((users) => new Set(users.map((u) => u.id)).size === users.length, 'each user at most once'),
  })
  .strict();

const updateBody = z.object({ role: z.enum(WORKSPACE_ROLES) }).strict();

const listQuery = z.object({ ...pageQuery, role: csvEnum(WORKSPACE_ROLES).optional() });

async function memberOrThrow(db: Kysely<ControlDatabase>, workspaceId: string, userId: string) {
  const row = await findMember(db, workspaceId, userId);
  if (!row) throw notFound('workspace member');
  return row;
}

/** The removed member's workspace keys stop working now and on every gateway (a change each). */
async function disableMemberKeys(tx: MutationTx, workspaceId: string, userId: string): Promise<void> {
  const keys = await tx.db
    .updateTable('api_keys')
    .set({ status: 'disabled', version: sql<number>`version + 1`, updated_at: new Date() })
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .where('type', '=', 'workspace')
    .where('status', 'in', ['active', 'expired'])
    .returningAll()
    .execute();
  for (const key of keys) await tx.change(apiKeyEntity(key));
}

export const workspaceMemberRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'post',
    path: '/workspaces/:workspaceId/members',
    tag: TAG,
    summary: 'Add workspace members',
    scope: 'workspace_members.create',
    level: 'organisation',
    minRole: 'admin',
    params: workspaceParams,
    body: addBody,
    response: listSchema(memberSchema),
    status: 201,
    audit: { action: 'workspace_members.create', resourceType: 'workspace_member' },
    async handler({ db, principal, params, body, mutate }) {
      const workspace = await visibleWorkspace(db, principal, params.workspaceId);
      const single = body.users.length === 1 ? (body.users[0]?.id ?? null) : null;
      return mutate({ resourceId: single, workspaceId: workspace.id }, async (tx) => {
        const locked = await tx.db
          .selectFrom('workspaces')
          .select('status')
          .where('id', '=', workspace.id)
          .forUpdate()
          .executeTakeFirstOrThrow();
        if (locked.status === 'archived') throw conflict('the workspace is archived; un-archive it first');
        const ids = body.users.map((u) => u.id);
        const active = new Set(
          (
            await tx.db
              .selectFrom('users')
              .select('id')
              .where('organisation_id', '=', principal.organisationId)
              .where('status', '=', 'active')
              .where('id', 'in', ids)
              .execute()
          ).map((r) => r.id),
        );
        const existing = new Set(
          (
            await tx.db
              .selectFrom('workspace_members')
              .select('user_id')
              .where('workspace_id', '=', workspace.id)
              .where('user_id', 'in', ids)
              .execute()
          ).map((r) => r.user_id),
        );
        body.users.forEach((user, i) => {
          const param = `body.users.${i}.id`;
          if (!active.has(user.id))
            throw referenceNotFound(`user ${user.id} is not an active user of the organisation`, param);
          if (existing.has(user.id))
            throw conflict(
              `user ${user.id} is already a member of the workspace; change its role with PUT`,
              param,
            );
        });
        try {
          await tx.db
            .insertInto('workspace_members')
            .values(body.users.map((u) => ({ workspace_id: workspace.id, user_id: u.id, role: u.role })))
            .execute();
        } catch (err) {
          // A membership added concurrently by another path (an accepted invite).
          if ((err as { code?: unknown }).code === '23505')
            throw conflict(
              'a user of the list was added to the workspace meanwhile; list the members and retry',
            );
          throw err;
        }
        const rows = await membersQuery(tx.db, workspace.id)
          .select(MEMBER_COLUMNS)
          .where('m.user_id', 'in', ids)
          .orderBy('m.created_at')
          .orderBy('m.user_id')
          .execute();
        return toList(rows.map(memberToApi), rows.length);
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/workspaces/:workspaceId/members',
    tag: TAG,
    summary: 'List workspace members',
    scope: 'workspace_members.list',
    level: 'workspace',
    params: workspaceParams,
    query: listQuery,
    response: listSchema(memberSchema),
    async handler({ db, principal, params, query }) {
      const workspace = await visibleWorkspace(db, principal, params.workspaceId);
      let filtered = membersQuery(db, workspace.id);
      if (query.role) filtered = filtered.where('m.role', 'in', query.role);
      const { limit, offset } = pageBounds(query);
      const page = await readPage(db, filtered, (q) =>
        q.select(MEMBER_COLUMNS).orderBy('m.created_at').orderBy('m.user_id').limit(limit).offset(offset),
      );
      return toList(page.rows.map(memberToApi), page.total);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/workspaces/:workspaceId/members/:userId',
    tag: TAG,
    summary: 'Get a workspace member',
    scope: 'workspace_members.read',
    level: 'workspace',
    params: memberParams,
    response: memberSchema,
    async handler({ db, principal, params }) {
      const workspace = await visibleWorkspace(db, principal, params.workspaceId);
      return memberToApi(await memberOrThrow(db, workspace.id, params.userId));
    },
  }),
  defineRoute({
    method: 'put',
    path: '/workspaces/:workspaceId/members/:userId',
    tag: TAG,
    summary: 'Change a workspace member role',
    scope: 'workspace_members.update',
    level: 'organisation',
    minRole: 'admin',
    params: memberParams,
    body: updateBody,
    response: memberSchema,
    audit: { action: 'workspace_members.update', resourceType: 'workspace_member' },
    entity: { exempt: 'workspace memberships have no version' },
    async handler({ db, principal, params, body, mutate }) {
      const workspace = await visibleWorkspace(db, principal, params.workspaceId);
      return mutate({ resourceId: params.userId, workspaceId: workspace.id }, async (tx) => {
        const updated = await tx.db
          .updateTable('workspace_members')
          .set({ role: body.role, updated_at: new Date() })
          .where('workspace_id', '=', workspace.id)
          .where('user_id', '=', params.userId)
          .returning('user_id')
          .executeTakeFirst();
        if (!updated) throw notFound('workspace member');
        return memberToApi(await memberOrThrow(tx.db, workspace.id, params.userId));
      });
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/workspaces/:workspaceId/members/:userId',
    tag: TAG,
    summary: 'Remove a workspace member',
    scope: 'workspace_members.delete',
    level: 'organisation',
    minRole: 'admin',
    params: memberParams,
    response: memberSchema,
    audit: { action: 'workspace_members.delete', resourceType: 'workspace_member' },
    entity: { exempt: 'workspace memberships have no version' },
    async handler({ db, principal, params, mutate }) {
      const workspace = await visibleWorkspace(db, principal, params.workspaceId);
      return mutate({ resourceId: params.userId, workspaceId: workspace.id }, async (tx) => {
        const member: MemberRow = await memberOrThrow(tx.db, workspace.id, params.userId);
        const removed = await tx.db
          .deleteFrom('workspace_members')
          .where('workspace_id', '=', workspace.id)
          .where('user_id', '=', params.userId)
          .executeTakeFirst();
        if (removed.numDeletedRows === 0n) throw notFound('workspace member');
        await disableMemberKeys(tx, workspace.id, params.userId);
        return memberToApi(member);
      });
    },
  }),
];
