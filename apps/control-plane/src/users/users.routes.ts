// Users of the organisation (spec 5.3 "manage users and permissions": organisation-level callers
// only). Users join through invites, so there is no POST /users; removal keeps the row as `removed`.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { z } from 'zod';
import { conflict, forbidden, notFound } from '../api-errors.js';
import { apiKeyEntity } from '../api-keys/api-keys.entity.js';
import type { Principal } from '../auth/principal.js';
import type { ControlDatabase } from '../db/schema.js';
import { csvEnum, listSchema, pageBounds, pageQuery, toList } from '../http/list.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { membershipsOf, type UserRow, userSchema, userToApi, userWithMemberships } from './users.entity.js';
import { removalRefusal, updateRefusal } from './users.rules.js';

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

/**
 * Locks the organisation's active owners (id order, before any other user row, so two owners
 * demoting each other serialise instead of deadlocking) and returns their ids.
 */
async function lockOwners(db: Kysely<ControlDatabase>, organisationId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('users')
    .select('id')
    .where('organisation_id', '=', organisationId)
    .where('role', '=', 'owner')
    .where('status', '=', 'active')
    .orderBy('id')
    .forUpdate()
    .execute();
  return rows.map((r) => r.id);
}

/** The target user, locked; 404 outside the caller's organisation, 409 once removed. */
async function lockUser(db: Kysely<ControlDatabase>, principal: Principal, userId: string): Promise<UserRow> {
  const row = await db
    .selectFrom('users')
    .selectAll()
    .where('organisation_id', '=', principal.organisationId)
    .where('id', '=', userId)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw notFound('user');
  if (row.status === 'removed') throw conflict('the user was removed from the organisation');
  return row;
}

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
      const [rows, count] = await Promise.all([
        filtered.selectAll().orderBy('created_at').orderBy('id').limit(limit).offset(offset).execute(),
        filtered.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
      ]);
      const memberships = await membershipsOf(
        db,
        rows.map((r) => r.id),
      );
      return toList(
        rows.map((r) => userToApi(r, memberships.get(r.id) ?? [])),
        count.n,
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
    async handler({ principal, params, body, mutate }) {
      return mutate({ resourceId: params.userId, workspaceId: null }, async (tx) => {
        const owners = await lockOwners(tx.db, principal.organisationId);
        const current = await lockUser(tx.db, principal, params.userId);
        const refusal = updateRefusal(principal.role, current.role, body.role);
        if (refusal) throw forbidden(refusal);
        const demotesOwner = body.role !== undefined && current.role === 'owner';
        if (demotesOwner && owners.length <= 1)
          throw conflict('the last owner of the organisation cannot be demoted', 'body.role');
        const row = await tx.db
          .updateTable('users')
          .set({
            first_name: body.first_name ?? current.first_name,
            last_name: body.last_name ?? current.last_name,
            role: body.role ?? current.role,
            version: sql<number>`version + 1`,
            updated_at: new Date(),
          })
          .where('id', '=', current.id)
          .returningAll()
          .executeTakeFirstOrThrow();
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
    async handler({ principal, params, mutate }) {
      return mutate({ resourceId: params.userId, workspaceId: null }, async (tx) => {
        const owners = await lockOwners(tx.db, principal.organisationId);
        const current = await lockUser(tx.db, principal, params.userId);
        const refusal = removalRefusal(principal.role, current.role);
        if (refusal) throw forbidden(refusal);
        if (current.role === 'owner' && owners.length <= 1)
          throw conflict('the last owner of the organisation cannot be removed');
        const row = await tx.db
          .updateTable('users')
          .set({ status: 'removed', version: sql<number>`version + 1`, updated_at: new Date() })
          .where('id', '=', current.id)
          .returningAll()
          .executeTakeFirstOrThrow();
        await tx.db.deleteFrom('workspace_members').where('user_id', '=', current.id).execute();
        // Gateways hold the user's keys in their snapshots: each disabled key is a change they apply.
        const keys = await tx.db
          .updateTable('api_keys')
          .set({ status: 'disabled', version: sql<number>`version + 1`, updated_at: new Date() })
          .where('organisation_id', '=', principal.organisationId)
          .where('user_id', '=', current.id)
          .where('status', 'in', ['active', 'expired'])
          .returningAll()
          .execute();
        for (const key of keys) await tx.change(apiKeyEntity(key));
        return userToApi(row, []);
      });
    },
  }),
];
