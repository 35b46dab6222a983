// Users of the organisation (spec 5.3 "manage users and permissions": organisation-level callers
// only). Users join through invites, so there is no POST /users; removal keeps the row as `removed`.
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { conflict, notFound } from '../api-errors.js';
import type { Principal } from '../auth/principal.js';
import { readPage } from '../db/page-read.js';
import type { ControlDatabase } from '../db/schema.js';
import { csvEnum, listSchema, pageBounds, pageQuery, toList } from '../http/list.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { membershipsOf, type UserRow, userSchema, userToApi, userWithMemberships } from './users.entity.js';
import { lockOwners, lockUser, removeUser, updateUser } from './users.repository.js';

const userParams = z.object({ userId: z.uuid() });

/** Exact, case-insensitive e-mail filter (stored e-mails are lowercase). */
export const emailFilter = z
  .string()
  .trim()
  .min(1)
  .max(320)
  // Postgres text cannot hold NUL: such a value would fail the query (500) instead of matching nothing.
  .refine((v) => !v.includes('\u0000'), 'must not contain NUL characters')
  .transform((v) => v.toLowerCase());

const listQuery = z.object({
  ...pageQuery,
  role: csvEnum(['owner', 'admin', 'member']).optional(),
  status: csvEnum(['active', 'removed']).default(['active']),
  email: emailFilter.optional(),
});

const nameField = z.string().trim().max(255);
const updateBody = z
  .object({
    first_name: nameField.optional(),
    last_name: nameField.optional(),
    role: z.enum(['admin', 'member']).optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'give at least one of first_name, last_name, role');

/** The target user, locked; 404 outside the caller's organisation, 409 once removed. */
async function lockActiveUser(
  db: Kysely<ControlDatabase>,
  principal: Principal,
  userId: string,
): Promise<UserRow> {
  const row = await lockUser(db, principal.organisationId, userId);
  if (!row) throw notFound('user');
  if (row.status === 'removed') throw conflict('the user was removed from the organisation');
  return row;
}

/** A user write locks the organisation's owners before the user (lockOwners): If-Match keeps that order. */
const WRITTEN_USER = {
  table: 'users',
  lockBefore: (db: Kysely<ControlDatabase>, principal: Principal) => lockOwners(db, principal.organisationId),
} as const;

export const userRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'get',
    path: '/users',
    tag: 'Users',
    summary: 'List users',
    scope: 'users.list',
    level: 'organisation',
    query: listQuery,
    response: listSchema(userSchema),
    async handler({ db, principal, query }) {
      let filtered = db
        .selectFrom('users')
        .where('organisation_id', '=', principal.organisationId)
        .where('status', 'in', query.status);
      if (query.role) filtered = filtered.where('role', 'in', query.role);
      if (query.email !== undefined) filtered = filtered.where('email', '=', query.email);
      const { limit, offset } = pageBounds(query);
      const page = await readPage(db, filtered, (q) =>
        q.selectAll().orderBy('created_at').orderBy('id').limit(limit).offset(offset),
      );
      const memberships = await membershipsOf(
        db,
        page.rows.map((r) => r.id),
      );
      return toList(
        page.rows.map((r) => userToApi(r, memberships.get(r.id) ?? [])),
        page.total,
      );
    },
  }),
  defineRoute({
    method: 'get',
    path: '/users/:userId',
    tag: 'Users',
    summary: 'Get a user',
    scope: 'users.read',
    level: 'organisation',
    params: userParams,
    response: userSchema,
    entity: { table: 'users' },
    async handler({ db, principal, params }) {
      const row = await db
        .selectFrom('users')
        .selectAll()
        .where('organisation_id', '=', principal.organisationId)
        .where('id', '=', params.userId)
        .executeTakeFirst();
      if (!row) throw notFound('user');
      return userWithMemberships(db, row);
    },
  }),
  defineRoute({
    method: 'put',
    path: '/users/:userId',
    tag: 'Users',
    summary: 'Update a user',
    scope: 'users.update',
    level: 'organisation',
    params: userParams,
    body: updateBody,
    response: userSchema,
    audit: { action: 'users.update', resourceType: 'user' },
    entity: WRITTEN_USER,
    async handler({ principal, params, body, mutate }) {
      return mutate({ resourceId: params.userId, workspaceId: null }, async (tx) => {
        const owners = await lockOwners(tx.db, principal.organisationId);
        const current = await lockActiveUser(tx.db, principal, params.userId);
        const row = await updateUser(tx.db, principal, current, owners, body);
        return userWithMemberships(tx.db, row);
      });
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/users/:userId',
    tag: 'Users',
    summary: 'Remove a user',
    scope: 'users.delete',
    level: 'organisation',
    params: userParams,
    response: userSchema,
    audit: { action: 'users.delete', resourceType: 'user' },
    entity: WRITTEN_USER,
    async handler({ principal, params, mutate }) {
      return mutate({ resourceId: params.userId, workspaceId: null }, async (tx) => {
        const owners = await lockOwners(tx.db, principal.organisationId);
        const current = await lockActiveUser(tx.db, principal, params.userId);
        const row = await removeUser(tx, principal, current, owners);
        return userToApi(row, []);
      });
    },
  }),
];
