// The one write path of user rows after they exist: updates and removal under the role rules, used by
// the admin API (/v1/users) and SCIM provisioning (/scim/v2/Users) alike, inside their transaction.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { conflict, forbidden } from '../api-errors.js';
import { apiKeyEntity } from '../api-keys/api-keys.entity.js';
import type { Principal } from '../auth/principal.js';
import type { ControlDatabase, OrgRole } from '../db/schema.js';
import type { MutationTx } from '../http/route.js';
import type { UserRow } from './users.entity.js';
import { removalRefusal, updateRefusal } from './users.rules.js';

/**
 * Locks the organisation's active owners (id order, before any other user row, so two owners
 * demoting each other serialise instead of deadlocking) and returns their ids.
 */
export async function lockOwners(db: Kysely<ControlDatabase>, organisationId: string): Promise<string[]> {
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

/** The organisation's user of this id, locked (whatever its status), or undefined. */
export async function lockUser(
  db: Kysely<ControlDatabase>,
  organisationId: string,
  userId: string,
): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('organisation_id', '=', organisationId)
    .where('id', '=', userId)
    .forUpdate()
    .executeTakeFirst();
}

export interface UserChanges {
  readonly first_name?: string | undefined;
  readonly last_name?: string | undefined;
  readonly role?: 'admin' | 'member' | undefined;
  /** SCIM only: a new e-mail (lowercase; the caller answers the unique violation). */
  readonly email?: string | undefined;
  /** SCIM only: the identity provider's id (null clears it). */
  readonly external_id?: string | null | undefined;
  /** SCIM only: bring a removed user back (as an accepted invite does) and forget a SCIM delete. */
  readonly restore?: boolean;
  /** SCIM only: forget a SCIM delete, the user staying removed (created again with active false). */
  readonly undelete?: boolean;
}

/**
 * Applies `changes` to `current` (locked, with the owners locked first) when the caller's role may:
 * 403 past the role rules, 409 demoting the last owner.
 */
export async function updateUser(
  db: Kysely<ControlDatabase>,
  principal: Principal,
  current: UserRow,
  owners: readonly string[],
  changes: UserChanges,
): Promise<UserRow> {
  const refusal = updateRefusal(principal.role, current.role, changes.role);
  if (refusal) throw forbidden(refusal);
  const demotesOwner = changes.role !== undefined && current.role === 'owner';
  if (demotesOwner && owners.length <= 1)
    throw conflict('the last owner of the organisation cannot be demoted', 'body.role');
  return db
    .updateTable('users')
    .set({
      first_name: changes.first_name ?? current.first_name,
      last_name: changes.last_name ?? current.last_name,
      role: changes.role ?? current.role,
      email: changes.email ?? current.email,
      external_id: changes.external_id === undefined ? current.external_id : changes.external_id,
      ...(changes.restore ? { status: 'active' as const } : {}),
      ...(changes.restore || changes.undelete ? { scim_deleted_at: null } : {}),
      version: sql<number>`version + 1`,
      updated_at: new Date(),
    })
    .where('id', '=', current.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Removes `current` (locked, active, owners locked first) from the organisation: status `removed`,
 * no workspace memberships, its API keys disabled (each a change gateways apply). 403 past the role
 * rules, 409 for the last owner. `scimDeleted` also hides the user from SCIM (RFC 7644 3.6).
 */
export async function removeUser(
  tx: MutationTx,
  principal: Principal,
  current: UserRow,
  owners: readonly string[],
  options: { readonly scimDeleted?: boolean } = {},
): Promise<UserRow> {
  const refusal = removalRefusal(principal.role, current.role);
  if (refusal) throw forbidden(refusal);
  if (current.role === 'owner' && owners.length <= 1)
    throw conflict('the last owner of the organisation cannot be removed');
  const row = await tx.db
    .updateTable('users')
    .set({
      status: 'removed',
      ...(options.scimDeleted ? { scim_deleted_at: new Date() } : {}),
      version: sql<number>`version + 1`,
      updated_at: new Date(),
    })
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
  return row;
}

/** Marks an already removed user as SCIM-deleted (RFC 7644 3.6: 404 from then on). */
export async function markScimDeleted(db: Kysely<ControlDatabase>, current: UserRow): Promise<UserRow> {
  return db
    .updateTable('users')
    .set({ scim_deleted_at: new Date(), version: sql<number>`version + 1`, updated_at: new Date() })
    .where('id', '=', current.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * The id of the organisation's user with this e-mail (any status), read before a write's
 * transaction so its audit names the user; the write re-checks under its lock.
 */
export async function userIdByEmail(
  db: Kysely<ControlDatabase>,
  organisationId: string,
  email: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('users')
    .select('id')
    .where('organisation_id', '=', organisationId)
    .where('email', '=', email)
    .executeTakeFirst();
  return row?.id;
}

export interface NewUser {
  readonly id: string;
  readonly organisationId: string;
  readonly email: string;
  readonly first_name: string;
  readonly last_name: string;
  readonly role: OrgRole;
  readonly external_id: string | null;
  /** `removed`: provisioned already deactivated (SCIM create with active false). */
  readonly status: 'active' | 'removed';
}

/** Inserts a user with no workspace (SCIM create; invites have their own accept path). */
export async function insertUser(db: Kysely<ControlDatabase>, user: NewUser): Promise<UserRow> {
  return db
    .insertInto('users')
    .values({
      id: user.id,
      organisation_id: user.organisationId,
      email: user.email,
      first_name: user.first_name,
      last_name: user.last_name,
      role: user.role,
      external_id: user.external_id,
      status: user.status,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}
