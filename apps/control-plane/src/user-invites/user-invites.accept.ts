// Accepting an invite: a public route (the invite token is the credential) that creates or
// re-activates the user and its workspace memberships in one transaction.
import { randomUUID } from 'node:crypto';
import { type Actor, ActorType } from '@aigw/proto';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { z } from 'zod';
import { apiError, conflict } from '../api-errors.js';
import type { ControlDatabase } from '../db/schema.js';
import { defineRoute } from '../http/route.js';
import { type UserRow, userSchema, userWithMemberships } from '../users/users.entity.js';
import { userIdByEmail } from '../users/users.repository.js';
import { hashInviteToken } from './invite-token.js';
import { inviteStatus, type UserInviteRow } from './user-invites.entity.js';

const nameField = z.string().trim().max(255);

const acceptBody = z
  .object({
    token: z.string().min(1).max(512),
    first_name: nameField.optional(),
    last_name: nameField.optional(),
  })
  .strict();

/** One answer for unknown, expired, cancelled and used tokens: the caller learns nothing more. */
const unusable = () => apiError('AB08', 'invite not found, expired, cancelled or already accepted');

/** The invite of this token hash in an active organisation (whatever its status), or undefined. */
async function findInvite(
  db: Kysely<ControlDatabase>,
  hash: string,
  lock: boolean,
): Promise<UserInviteRow | undefined> {
  let query = db
    .selectFrom('user_invites')
    .selectAll()
    .where('token_hash', '=', hash)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('organisations')
          .select('organisations.id')
          .whereRef('organisations.id', '=', 'user_invites.organisation_id')
          .where('organisations.status', '=', 'active'),
      ),
    );
  if (lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

function pending(row: UserInviteRow | undefined): UserInviteRow {
  if (!row || inviteStatus(row, new Date()) !== 'pending') throw unusable();
  return row;
}

/** The invited user: the removed user of the same e-mail comes back, else a new one is created. */
async function upsertUser(
  db: Kysely<ControlDatabase>,
  invite: UserInviteRow,
  userId: string,
  names: { first_name?: string | undefined; last_name?: string | undefined },
): Promise<UserRow> {
  const existing = await db
    .selectFrom('users')
    .selectAll()
    .where('organisation_id', '=', invite.organisation_id)
    .where('email', '=', invite.email)
    .forUpdate()
    .executeTakeFirst();
  if (existing?.status === 'active')
    throw conflict('the invited email already belongs to a user of the organisation');
  if (existing)
    return db
      .updateTable('users')
      .set({
        status: 'active',
        role: invite.role,
        first_name: names.first_name ?? existing.first_name,
        last_name: names.last_name ?? existing.last_name,
        version: sql<number>`version + 1`,
        updated_at: new Date(),
      })
      .where('id', '=', existing.id)
      .returningAll()
      .executeTakeFirstOrThrow();
  return db
    .insertInto('users')
    .values({
      id: userId,
      organisation_id: invite.organisation_id,
      email: invite.email,
      first_name: names.first_name ?? '',
      last_name: names.last_name ?? '',
      role: invite.role,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export const acceptInviteRoute = defineRoute({
  method: 'post',
  path: '/user-invites/accept',
  tag: 'User-invites',
  summary: 'Accept a user invite',
  scope: null,
  level: 'organisation',
  auth: 'none',
  body: acceptBody,
  response: userSchema,
  status: 201,
  audit: { action: 'user_invites.accept', resourceType: 'user_invite' },
  async handler({ db, body, mutate, auditAs }) {
    const hash = hashInviteToken(body.token);
    // Read first for the audit target (organisation, invite, acting user); re-checked under lock.
    const found = await findInvite(db, hash, false);
    // The token matched an invite (expired, cancelled or used, perhaps): a refusal is that
    // organisation's record. An unknown token stays unattributed.
    if (found) auditAs({ resourceId: found.id, workspaceId: null, organisationId: found.organisation_id });
    const invite = pending(found);
    const userId = (await userIdByEmail(db, invite.organisation_id, invite.email)) ?? randomUUID();
    const actor: Actor = { type: ActorType.USER, userId, apiKeyId: '', displayName: invite.email };
    return mutate(
      { resourceId: invite.id, workspaceId: null, organisationId: invite.organisation_id, actor },
      async (tx) => {
        const locked = pending(await findInvite(tx.db, hash, true));
        const user = await upsertUser(tx.db, locked, userId, body);
        if (user.id !== userId) throw conflict('the invite changed while it was accepted; try again');
        const grants = locked.workspaces;
        // Workspaces archived or deleted since the invite was sent are skipped.
        const live =
          grants.length === 0
            ? []
            : await tx.db
                .selectFrom('workspaces')
                .select('id')
                .where('organisation_id', '=', locked.organisation_id)
                .where('status', '=', 'active')
                .where(
                  'id',
                  'in',
                  grants.map((g) => g.id),
                )
                .execute();
        const liveIds = new Set(live.map((w) => w.id));
        const members = grants.filter((g) => liveIds.has(g.id));
        if (members.length > 0)
          await tx.db
            .insertInto('workspace_members')
            .values(members.map((g) => ({ workspace_id: g.id, user_id: user.id, role: g.role })))
            .onConflict((oc) =>
              oc
                .columns(['workspace_id', 'user_id'])
                .doUpdateSet((eb) => ({ role: eb.ref('excluded.role'), updated_at: new Date() })),
            )
            .execute();
        await tx.db
          .updateTable('user_invites')
          .set({ status: 'accepted', accepted_user_id: user.id, updated_at: new Date() })
          .where('id', '=', locked.id)
          .execute();
        return userWithMemberships(tx.db, user);
      },
    );
  },
});
