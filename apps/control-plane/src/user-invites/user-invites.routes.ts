// User invites (spec 5.3 "manage users and permissions"): organisation-level callers invite by
// e-mail; the invitee accepts with the one-time token (user-invites.accept.ts).
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { conflict, forbidden, notFound } from '../api-errors.js';
import { isUuid } from '../auth/visibility.js';
import { readPage } from '../db/page-read.js';
import { csvEnum, idOrSlug, listSchema, pageBounds, pageQuery, toList } from '../http/list.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { emailFilter } from '../users/users.routes.js';
import { inviteRefusal } from '../users/users.rules.js';
import { generateInviteToken } from './invite-token.js';
import { acceptInviteRoute } from './user-invites.accept.js';
import {
  INVITE_STATUSES,
  inviteSchema,
  inviteStatus,
  inviteToApi,
  inviteWithTokenSchema,
} from './user-invites.entity.js';
import { assertNotMember, lockInvite, resolveGrants, statusIn } from './user-invites.queries.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const expiresInDays = z.number().int().min(1).max(30).default(7);
const inviteParams = z.object({ inviteId: z.uuid() });

const createBody = z
  .object({
    email: z.string().trim().toLowerCase().max(320).pipe(z.email()),
    role: z.enum(['admin', 'member']),
    workspaces: z
      .array(z.object({ id: idOrSlug, role: z.enum(['manager', 'member']) }).strict())
      .max(100)
      .default([]),
    expires_in_days: expiresInDays,
  })
  .strict();

const listQuery = z.object({
  ...pageQuery,
  status: csvEnum(INVITE_STATUSES).optional(),
  email: emailFilter.optional(),
});

export const userInviteRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'post',
    path: '/user-invites',
    tag: 'User-invites',
    summary: 'Invite a user',
    scope: 'user_invites.create',
    level: 'organisation',
    body: createBody,
    response: inviteWithTokenSchema,
    status: 201,
    audit: { action: 'user_invites.create', resourceType: 'user_invite' },
    async handler({ principal, body, mutate }) {
      const refusal = inviteRefusal(principal.role, body.role);
      if (refusal) throw forbidden(refusal);
      const id = randomUUID();
      return mutate({ resourceId: id, workspaceId: null }, async (tx) => {
        const workspaces = await resolveGrants(tx.db, principal, body.workspaces);
        await assertNotMember(tx.db, principal.organisationId, body.email, 'body.email');
        const now = new Date();
        const pending = await tx.db
          .selectFrom('user_invites')
          .select(['id', 'expires_at'])
          .where('organisation_id', '=', principal.organisationId)
          .where('email', '=', body.email)
          .where('status', '=', 'pending')
          .forUpdate()
          .executeTakeFirst();
        if (pending && pending.expires_at > now)
          throw conflict(`a pending invite for this email exists (${pending.id})`, 'body.email');
        // An expired invite leaves `pending` for good, so the new one can take its place.
        if (pending)
          await tx.db
            .updateTable('user_invites')
            .set({ status: 'expired', updated_at: now })
            .where('id', '=', pending.id)
            .execute();
        const token = generateInviteToken();
        const row = await tx.db
          .insertInto('user_invites')
          .values({
            id,
            organisation_id: principal.organisationId,
            email: body.email,
            role: body.role,
            workspaces: JSON.stringify(workspaces),
            token_hash: token.hash,
            invited_by_user_id:
              principal.userId !== null && isUuid(principal.userId) ? principal.userId : null,
            invited_by_api_key_id: principal.apiKeyId,
            expires_at: new Date(now.getTime() + body.expires_in_days * DAY_MS),
          })
          .returningAll()
          .executeTakeFirstOrThrow()
          .catch((err: unknown) => {
            if ((err as { code?: unknown }).code === '23505')
              throw conflict('a pending invite for this email exists', 'body.email');
            throw err;
          });
        return { ...inviteToApi(row, now), accept_token: token.token };
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/user-invites',
    tag: 'User-invites',
    summary: 'List user invites',
    scope: 'user_invites.list',
    level: 'organisation',
    query: listQuery,
    response: listSchema(inviteSchema),
    async handler({ db, principal, query }) {
      const now = new Date();
      let filtered = db.selectFrom('user_invites').where('organisation_id', '=', principal.organisationId);
      if (query.status) filtered = filtered.where(statusIn(query.status, now));
      if (query.email !== undefined) filtered = filtered.where('email', '=', query.email);
      const { limit, offset } = pageBounds(query);
      const page = await readPage(db, filtered, (q) =>
        q.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(limit).offset(offset),
      );
      return toList(
        page.rows.map((r) => inviteToApi(r, now)),
        page.total,
      );
    },
  }),
  defineRoute({
    method: 'get',
    path: '/user-invites/:inviteId',
    tag: 'User-invites',
    summary: 'Get a user invite',
    scope: 'user_invites.read',
    level: 'organisation',
    params: inviteParams,
    response: inviteSchema,
    async handler({ db, principal, params }) {
      const row = await db
        .selectFrom('user_invites')
        .selectAll()
        .where('organisation_id', '=', principal.organisationId)
        .where('id', '=', params.inviteId)
        .executeTakeFirst();
      if (!row) throw notFound('user invite');
      return inviteToApi(row);
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/user-invites/:inviteId',
    tag: 'User-invites',
    summary: 'Cancel a user invite',
    scope: 'user_invites.delete',
    level: 'organisation',
    params: inviteParams,
    response: inviteSchema,
    audit: { action: 'user_invites.cancel', resourceType: 'user_invite' },
    entity: { exempt: 'invites have no version' },
    async handler({ principal, params, mutate }) {
      return mutate({ resourceId: params.inviteId, workspaceId: null }, async (tx) => {
        const current = await lockInvite(tx.db, principal, params.inviteId);
        const now = new Date();
        const status = inviteStatus(current, now);
        if (status !== 'pending')
          throw conflict(`the invite is ${status}; only pending invites can be cancelled`);
        const row = await tx.db
          .updateTable('user_invites')
          .set({ status: 'cancelled', updated_at: now })
          .where('id', '=', current.id)
          .returningAll()
          .executeTakeFirstOrThrow();
        return inviteToApi(row, now);
      });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/user-invites/:inviteId/resend',
    tag: 'User-invites',
    summary: 'Resend a user invite',
    scope: 'user_invites.create',
    level: 'organisation',
    params: inviteParams,
    body: z.object({ expires_in_days: expiresInDays }).strict(),
    response: inviteWithTokenSchema,
    audit: { action: 'user_invites.resend', resourceType: 'user_invite' },
    async handler({ principal, params, body, mutate }) {
      return mutate({ resourceId: params.inviteId, workspaceId: null }, async (tx) => {
        const current = await lockInvite(tx.db, principal, params.inviteId);
        // Stored `pending` covers pending and expired-while-pending invites; superseded ones are `expired`.
        if (current.status !== 'pending')
          throw conflict(`the invite is ${current.status}; only pending or expired invites can be resent`);
        const refusal = inviteRefusal(principal.role, current.role);
        if (refusal) throw forbidden(refusal);
        await assertNotMember(tx.db, principal.organisationId, current.email);
        const now = new Date();
        const token = generateInviteToken();
        const row = await tx.db
          .updateTable('user_invites')
          .set({
            token_hash: token.hash,
            expires_at: new Date(now.getTime() + body.expires_in_days * DAY_MS),
            updated_at: now,
          })
          .where('id', '=', current.id)
          .returningAll()
          .executeTakeFirstOrThrow();
        return { ...inviteToApi(row, now), accept_token: token.token };
      });
    },
  }),
  acceptInviteRoute,
];
