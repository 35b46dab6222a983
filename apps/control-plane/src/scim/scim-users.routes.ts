// SCIM 2.0 /Users (RFC 7644 3): list with filter and paging, get, create, replace, patch, delete,
// on the users table through the users repository (the admin API's write path and role rules).
// `active: false` removes the user as DELETE /v1/users/{id} does; SCIM DELETE also hides it (404).
import { randomUUID } from 'node:crypto';
import type { Request } from 'express';
import type { Kysely } from 'kysely';
import {
  InvalidScimPatch,
  NoTarget,
  ScimError,
  type ScimPatchOperation,
  type ScimResource,
  scimPatch,
} from 'scim-patch';
import { z } from 'zod';
import { conflict } from '../api-errors.js';
import type { Principal } from '../auth/principal.js';
import type { Scope } from '../auth/scopes.js';
import { isUuid } from '../auth/visibility.js';
import { readPage } from '../db/page-read.js';
import type { ControlDatabase } from '../db/schema.js';
import { defineRoute, type MutationTx, type RouteDefinition } from '../http/route.js';
import type { UserRow } from '../users/users.entity.js';
import {
  insertUser,
  lockOwners,
  lockUser,
  markScimDeleted,
  removeUser,
  type UserChanges,
  updateUser,
  userIdByEmail,
} from '../users/users.repository.js';
import { LIST_SCHEMA, MAX_RESULTS } from './scim-discovery.js';
import { invalidValue, scimError, scimNotFound, uniqueness } from './scim-errors.js';
import { parseUserFilter } from './scim-filter.js';
import { desiredFields, firstIssue, type ScimUserInput, scimUserInput, userToScim } from './scim-user.js';

const SCOPE: Scope = 'scim.provision';
const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const AUDIT = (action: string) => ({ action: `scim.users.${action}`, resourceType: 'user' });

/** The SCIM base URL this request came in under (meta.location, Location). */
export function scimBase(req: Request): string {
  // Behind trusted proxies (TRUST_PROXY) the scheme and host clients used (X-Forwarded-Proto, -Host).
  return `${req.protocol}://${req.host ?? 'localhost'}${req.baseUrl}`;
}

// Ids are path strings, not validated as uuids: an unknown id of any shape is SCIM's 404.
const userParams = z.object({ userId: z.string() });

const listQuery = z.looseObject({
  filter: z.string().max(2048).optional(),
  // RFC 7644 3.4.2.4: startIndex below 1 is 1; a negative count is 0.
  startIndex: z.coerce
    .number()
    .int()
    .default(1)
    .transform((v) => Math.max(1, v)),
  count: z.coerce
    .number()
    .int()
    .default(100)
    .transform((v) => Math.min(MAX_RESULTS, Math.max(0, v))),
});

const patchBody = z.looseObject({
  schemas: z.array(z.string()).refine((s) => s.includes(PATCH_SCHEMA), `must include ${PATCH_SCHEMA}`),
  Operations: z
    .array(
      z.looseObject({ op: z.string().max(16), path: z.string().max(1024).optional(), value: z.unknown() }),
    )
    .min(1)
    .max(100),
});

/**
 * Users SCIM sees: every user of the organisation but the removed ones SCIM deleted (one invited
 * back since is active, and seen again).
 */
function visibleUsers(db: Kysely<ControlDatabase>, principal: Principal) {
  return db
    .selectFrom('users')
    .where('organisation_id', '=', principal.organisationId)
    .where((eb) => eb.or([eb('scim_deleted_at', 'is', null), eb('status', '=', 'active')]));
}

const scimDeleted = (row: UserRow) => row.scim_deleted_at !== null && row.status !== 'active';

/** The user, locked with the owners before it; 404 when unknown or SCIM-deleted. */
async function lockVisible(tx: MutationTx, principal: Principal, userId: string) {
  const owners = await lockOwners(tx.db, principal.organisationId);
  const current = isUuid(userId) ? await lockUser(tx.db, principal.organisationId, userId) : undefined;
  if (!current || scimDeleted(current)) throw scimNotFound(`user ${userId} not found`);
  return { owners, current };
}

/** 409 uniqueness when another user of the organisation already has `email`. */
async function assertEmailFree(
  db: Kysely<ControlDatabase>,
  principal: Principal,
  email: string,
  self: string | null,
) {
  let query = db
    .selectFrom('users')
    .select(['id', 'status'])
    .where('organisation_id', '=', principal.organisationId)
    .where('email', '=', email);
  if (self !== null) query = query.where('id', '!=', self);
  if (await query.executeTakeFirst()) throw uniqueness(`userName ${email} is already taken`);
}

/**
 * Brings `current` to the state `input` describes: field changes through the repository's update,
 * then removal (active false) through its removal, in the caller's transaction.
 */
async function applyDesired(
  tx: MutationTx,
  principal: Principal,
  current: UserRow,
  owners: readonly string[],
  input: ScimUserInput,
): Promise<UserRow> {
  const desired = desiredFields(input);
  if (desired.email !== current.email) await assertEmailFree(tx.db, principal, desired.email, current.id);
  const changes: UserChanges = {
    ...(desired.email !== current.email ? { email: desired.email } : {}),
    ...(desired.first_name !== current.first_name ? { first_name: desired.first_name } : {}),
    ...(desired.last_name !== current.last_name ? { last_name: desired.last_name } : {}),
    ...(desired.external_id !== current.external_id ? { external_id: desired.external_id } : {}),
    ...(desired.active && current.status === 'removed' ? { restore: true } : {}),
  };
  // A replace that changes nothing writes nothing (and so needs no right over the user).
  let row =
    Object.keys(changes).length > 0 ? await updateUser(tx.db, principal, current, owners, changes) : current;
  if (!desired.active && row.status === 'active') row = await removeUser(tx, principal, row, owners);
  return row;
}

/** The error scim-patch threw as SCIM's (noTarget for a filter matching nothing, else invalidValue). */
function patchError(err: unknown): never {
  if (err instanceof NoTarget) throw scimError(400, err.message, 'noTarget');
  if (err instanceof InvalidScimPatch || err instanceof ScimError) throw invalidValue(err.message);
  throw err;
}

/** A concurrent create or rename took the e-mail first (Postgres unique violation): 409 uniqueness. */
async function uniquelyNamed<T>(write: Promise<T>, email?: string): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if ((err as { code?: unknown } | null)?.code === '23505')
      throw uniqueness(
        email === undefined ? 'the userName is already taken' : `userName ${email} is already taken`,
      );
    throw err;
  }
}

function parseUser(value: unknown): ScimUserInput {
  const parsed = scimUserInput.safeParse(value);
  if (!parsed.success) throw invalidValue(firstIssue(parsed.error));
  return parsed.data;
}

export const scimUserRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'get',
    path: '/Users',
    tag: 'SCIM',
    summary: 'List SCIM users',
    scope: SCOPE,
    level: 'organisation',
    query: listQuery,
    response: z.unknown(),
    async handler({ db, principal, query, req }) {
      const match = query.filter === undefined ? {} : parseUserFilter(query.filter);
      const empty = {
        schemas: [LIST_SCHEMA],
        totalResults: 0,
        startIndex: query.startIndex,
        itemsPerPage: 0,
        Resources: [],
      };
      if (match.nothing || (match.id !== undefined && !isUuid(match.id))) return empty;
      let filtered = visibleUsers(db, principal);
      if (match.userName !== undefined) filtered = filtered.where('email', '=', match.userName);
      if (match.externalId !== undefined) filtered = filtered.where('external_id', '=', match.externalId);
      if (match.id !== undefined) filtered = filtered.where('id', '=', match.id);
      const page = await readPage(db, filtered, (q) =>
        q
          .selectAll()
          .orderBy('created_at')
          .orderBy('id')
          .limit(query.count)
          .offset(query.startIndex - 1),
      );
      const base = scimBase(req);
      return {
        schemas: [LIST_SCHEMA],
        totalResults: page.total,
        startIndex: query.startIndex,
        itemsPerPage: page.rows.length,
        Resources: page.rows.map((row) => userToScim(row, base)),
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/Users/:userId',
    tag: 'SCIM',
    summary: 'Get a SCIM user',
    scope: SCOPE,
    level: 'organisation',
    params: userParams,
    response: z.unknown(),
    async handler({ db, principal, params, req }) {
      const row = isUuid(params.userId)
        ? await visibleUsers(db, principal).selectAll().where('id', '=', params.userId).executeTakeFirst()
        : undefined;
      if (!row) throw scimNotFound(`user ${params.userId} not found`);
      return userToScim(row, scimBase(req));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/Users',
    tag: 'SCIM',
    summary: 'Create a SCIM user',
    scope: SCOPE,
    level: 'organisation',
    body: z.unknown(),
    response: z.unknown(),
    status: 201,
    audit: AUDIT('create'),
    async handler({ db, principal, body, req, mutate }) {
      const input = parseUser(body);
      const desired = desiredFields(input);
      // A user SCIM deleted comes back under its id (as an accepted invite brings a removed user
      // back); the id is read before the transaction so the audit names it. A user SCIM still sees,
      // active or deactivated, is a 409 uniqueness: the IdP finds it by filter and links it.
      const knownId = await userIdByEmail(db, principal.organisationId, desired.email);
      const userId = knownId ?? randomUUID();
      const write = mutate({ resourceId: userId, workspaceId: null }, async (tx) => {
        const owners = await lockOwners(tx.db, principal.organisationId);
        const existing = knownId ? await lockUser(tx.db, principal.organisationId, knownId) : undefined;
        if (knownId && existing?.email !== desired.email)
          throw conflict('the user changed while it was provisioned; try again');
        if (!existing) {
          const created = await insertUser(tx.db, {
            id: userId,
            organisationId: principal.organisationId,
            email: desired.email,
            first_name: desired.first_name,
            last_name: desired.last_name,
            role: 'member',
            external_id: desired.external_id,
            status: desired.active ? 'active' : 'removed',
          });
          return created;
        }
        if (!scimDeleted(existing)) throw uniqueness(`userName ${desired.email} is already taken`);
        const changes: UserChanges = {
          first_name: desired.first_name,
          last_name: desired.last_name,
          external_id: desired.external_id,
          ...(desired.active ? { restore: true } : { undelete: true }),
        };
        return updateUser(tx.db, principal, existing, owners, changes);
      });
      const row = await uniquelyNamed(write, desired.email);
      const resource = userToScim(row, scimBase(req));
      req.res?.setHeader('location', resource.meta.location);
      return resource;
    },
  }),
  defineRoute({
    method: 'put',
    path: '/Users/:userId',
    tag: 'SCIM',
    summary: 'Replace a SCIM user',
    scope: SCOPE,
    level: 'organisation',
    params: userParams,
    body: z.unknown(),
    response: z.unknown(),
    audit: AUDIT('replace'),
    async handler({ principal, params, body, req, mutate }) {
      const input = parseUser(body);
      const write = mutate({ resourceId: params.userId, workspaceId: null }, async (tx) => {
        const { owners, current } = await lockVisible(tx, principal, params.userId);
        return applyDesired(tx, principal, current, owners, input);
      });
      const row = await uniquelyNamed(write, input.userName);
      return userToScim(row, scimBase(req));
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/Users/:userId',
    tag: 'SCIM',
    summary: 'Patch a SCIM user',
    scope: SCOPE,
    level: 'organisation',
    params: userParams,
    body: z.unknown(),
    response: z.unknown(),
    audit: AUDIT('patch'),
    async handler({ principal, params, body, req, mutate }) {
      const parsed = patchBody.safeParse(body);
      if (!parsed.success) throw invalidValue(firstIssue(parsed.error));
      const base = scimBase(req);
      const write = mutate({ resourceId: params.userId, workspaceId: null }, async (tx) => {
        const { owners, current } = await lockVisible(tx, principal, params.userId);
        let patched: unknown;
        try {
          patched = scimPatch(
            // scim-patch types meta dates as Date; it never reads them.
            structuredClone(userToScim(current, base)) as unknown as ScimResource,
            parsed.data.Operations as ScimPatchOperation[],
          );
        } catch (err) {
          patchError(err);
        }
        return applyDesired(tx, principal, current, owners, parseUser(patched));
      });
      const row = await uniquelyNamed(write);
      return userToScim(row, base);
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/Users/:userId',
    tag: 'SCIM',
    summary: 'Delete a SCIM user',
    scope: SCOPE,
    level: 'organisation',
    params: userParams,
    response: z.unknown(),
    status: 204,
    audit: AUDIT('delete'),
    async handler({ principal, params, mutate }) {
      await mutate({ resourceId: params.userId, workspaceId: null }, async (tx) => {
        const { owners, current } = await lockVisible(tx, principal, params.userId);
        if (current.status === 'active')
          await removeUser(tx, principal, current, owners, { scimDeleted: true });
        else await markScimDeleted(tx.db, current);
      });
      return undefined;
    },
  }),
];
