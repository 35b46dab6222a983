// Invite lookups shared by the invite routes: workspace grants, the derived status filter, locking.
import type { ExpressionBuilder, Kysely } from 'kysely';
import { conflict, invalid, notFound, referenceNotFound } from '../api-errors.js';
import type { Principal } from '../auth/principal.js';
import { isUuid } from '../auth/visibility.js';
import type { ControlDatabase, WorkspaceRole } from '../db/schema.js';
import type { InviteApiStatus, UserInviteRow } from './user-invites.entity.js';

export interface WorkspaceGrant {
  readonly id: string;
  readonly role: WorkspaceRole;
}

/** Resolves ids or slugs to workspace ids of the caller's organisation (AB02 when unknown). */
export async function resolveGrants(
  db: Kysely<ControlDatabase>,
  principal: Principal,
  grants: readonly WorkspaceGrant[],
): Promise<WorkspaceGrant[]> {
  const resolved: WorkspaceGrant[] = [];
  for (const [index, grant] of grants.entries()) {
    const param = `body.workspaces.${index}.id`;
    const byId = isUuid(grant.id);
    const row = await db
      .selectFrom('workspaces')
      .select(['id', 'status'])
      .where('organisation_id', '=', principal.organisationId)
      .where(byId ? 'id' : 'slug', '=', byId ? grant.id.toLowerCase() : grant.id)
      .executeTakeFirst();
    if (!row) throw referenceNotFound(`workspace ${grant.id} not found`, param);
    if (row.status !== 'active') throw conflict(`workspace ${grant.id} is archived`, param);
    if (resolved.some((r) => r.id === row.id)) throw invalid(`workspace ${grant.id} is listed twice`, param);
    resolved.push({ id: row.id, role: grant.role });
  }
  return resolved;
}

type InviteBuilder = ExpressionBuilder<ControlDatabase, 'user_invites'>;

/** Rows whose API status (with `expired` derived at `now`) is one of `statuses`. */
export function statusIn(statuses: readonly InviteApiStatus[], now: Date) {
  return (eb: InviteBuilder) =>
    eb.or(
      statuses.map((status) => {
        if (status === 'pending') return eb.and([eb('status', '=', 'pending'), eb('expires_at', '>', now)]);
        if (status === 'expired')
          return eb.or([
            eb('status', '=', 'expired'),
            eb.and([eb('status', '=', 'pending'), eb('expires_at', '<=', now)]),
          ]);
        return eb('status', '=', status);
      }),
    );
}

/** The invite of the caller's organisation, locked for this transaction; 404 otherwise. */
export async function lockInvite(
  db: Kysely<ControlDatabase>,
  principal: Principal,
  inviteId: string,
): Promise<UserInviteRow> {
  const row = await db
    .selectFrom('user_invites')
    .selectAll()
    .where('organisation_id', '=', principal.organisationId)
    .where('id', '=', inviteId)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw notFound('user invite');
  return row;
}

/** 409 when the e-mail already belongs to an active user of the organisation. */
export async function assertNotMember(
  db: Kysely<ControlDatabase>,
  organisationId: string,
  email: string,
  param?: string,
): Promise<void> {
  const user = await db
    .selectFrom('users')
    .select('id')
    .where('organisation_id', '=', organisationId)
    .where('email', '=', email)
    .where('status', '=', 'active')
    .executeTakeFirst();
  if (user) throw conflict('a user with this email is already a member of the organisation', param);
}
