// Secret references (spec 5.4): organisation-level pointers to secrets in an external manager, owned
// by organisation owners and admins only (every route needs the admin role and a
// secret_references.* scope). Manager credentials are sealed before the transaction and only shown
// masked. A change re-resolves the integrations and virtual keys that map the reference at the next
// sweep; `resolve` does it now and says per record what happened.
import { randomUUID } from 'node:crypto';
import { openSecret, sealSecret } from '@aigw/secret-box';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { z } from 'zod';
import { apiError, conflict, invalid, notFound } from '../api-errors.js';
import type { Principal } from '../auth/principal.js';
import { isUuid, visibleWorkspace } from '../auth/visibility.js';
import { readPage } from '../db/page-read.js';
import type { ControlDatabase } from '../db/schema.js';
import { type SecretReferenceRow, secretReferenceDb } from '../db/secret-references.db.js';
import { lockSlugs } from '../db/slug-lock.js';
import { pageBounds, toList } from '../http/list.js';
import { defineRoute, emptyObject, type RouteDefinition } from '../http/route.js';
import { candidatePrefix, firstFreeSlug, slugFromName } from '../http/slug.js';
import { maskSecret, storedForMasks, unmasked } from '../integrations/masked-values.js';
import { ownersMapping, type RefreshOutcome, refreshOwner } from '../integrations/secret-mappings.js';
import { INTEGRATION_SECRETS } from '../integrations/secret-owners.js';
import { creatorOf } from '../providers/providers.repository.js';
import { VIRTUAL_KEY_SECRETS } from '../providers/virtual-key-secrets.js';
import { referenceAad } from '../secrets/secret-managers.js';
import { SECRET_OWNERS } from './secret-owners.js';
import {
  AUTH,
  createSecretReferenceBody,
  listSecretReferencesQuery,
  resolutionSchema,
  SETTINGS,
  secretReferenceListSchema,
  secretReferenceParams,
  secretReferenceSchema,
  updateSecretReferenceBody,
} from './secret-references.schema.js';

const TAG = 'Secret references';

function toApi(row: SecretReferenceRow) {
  return {
    id: row.id,
    object: 'secret_reference' as const,
    organisation_id: row.organisation_id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    manager: row.manager,
    settings: row.settings,
    auth: row.masked_auth === null ? null : (JSON.parse(row.masked_auth) as Record<string, string>),
    allow_all_workspaces: row.allow_all_workspaces,
    allowed_workspaces: row.allowed_workspaces,
    refresh_interval_seconds: row.refresh_interval_seconds,
    created_by_user_id: row.created_by_user_id,
    created_by_api_key_id: row.created_by_api_key_id,
    created_at: row.created_at.toISOString(),
    last_updated_at: row.updated_at.toISOString(),
  };
}

function sealAuth(masterKey: Buffer | null, id: string, auth: Record<string, string> | null | undefined) {
  if (!auth) return { encrypted_auth: null, masked_auth: null };
  if (masterKey === null) {
    throw apiError(
      'AB04',
      'MASTER_KEY is not set on this control plane, so manager credentials cannot be stored (see docs/secrets.md)',
    );
  }
  const masked = Object.fromEntries(Object.entries(auth).map(([k, v]) => [k, maskSecret(v)]));
  return {
    encrypted_auth: sealSecret(masterKey, JSON.stringify(auth), referenceAad(id)),
    masked_auth: JSON.stringify(masked),
  };
}

/**
 * `auth` sent on update with each masked value read against the value stored at its field
 * (masked-values.ts): the mask of the stored value keeps it, a stray mask is 400 on that field.
 */
function authSentBack(masterKey: Buffer | null, row: SecretReferenceRow, sent: unknown): unknown {
  if (masterKey === null || typeof sent !== 'object' || sent === null || Array.isArray(sent)) return sent;
  const envelope = row.encrypted_auth;
  const stored = storedForMasks<Record<string, unknown>>(
    sent,
    () =>
      envelope ? JSON.parse(openSecret(masterKey, envelope, referenceAad(row.id)).toString('utf8')) : {},
    {},
  );
  return Object.fromEntries(
    Object.entries(sent).map(([field, value]) => [
      field,
      unmasked(value, Object.hasOwn(stored, field) ? stored[field] : undefined, `body.auth.${field}`),
    ]),
  );
}

function parseAs<T extends z.ZodType>(schema: T, value: unknown, param: string): z.output<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = [param, ...(issue?.path ?? [])].join('.');
    throw invalid(`${path}: ${issue?.message ?? 'invalid'}`, path);
  }
  return parsed.data;
}

async function workspaceIds(
  db: Kysely<ControlDatabase>,
  principal: Principal,
  refs: readonly string[] | undefined,
) {
  if (refs === undefined) return undefined;
  const ids: string[] = [];
  for (const ref of refs) ids.push((await visibleWorkspace(db, principal, ref)).id);
  return [...new Set(ids)];
}

async function findReference(
  db: Kysely<ControlDatabase>,
  principal: Principal,
  ref: string,
  forUpdate = false,
) {
  let query = secretReferenceDb(db)
    .selectFrom('secret_references')
    .selectAll()
    .where('organisation_id', '=', principal.organisationId)
    .where(isUuid(ref) ? 'id' : 'slug', '=', isUuid(ref) ? ref.toLowerCase() : ref);
  if (forUpdate) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  if (!row) throw notFound('secret reference');
  return row;
}

/** Makes every integration and virtual key that maps the reference due at the next sweep. */
async function markDue(db: Kysely<ControlDatabase>, referenceId: string): Promise<void> {
  const mapping = sql<boolean>`secret_mappings @> ${JSON.stringify([{ secret_reference_id: referenceId }])}::jsonb`;
  await db.updateTable('integrations').set({ secrets_checked_at: null }).where(mapping).execute();
  await db.updateTable('providers').set({ secrets_checked_at: null }).where(mapping).execute();
}

/** A slug from the name, made unique in the organisation (as the other families do). */
async function derivedSlug(
  db: Kysely<ControlDatabase>,
  organisationId: string,
  name: string,
): Promise<string> {
  const base = slugFromName(name, 'secret');
  const taken = await secretReferenceDb(db)
    .selectFrom('secret_references')
    .select('slug')
    .where('organisation_id', '=', organisationId)
    .where('slug', 'like', candidatePrefix(base))
    .execute();
  return firstFreeSlug(base, new Set(taken.map((r) => r.slug)));
}

const common = { tag: TAG, level: 'organisation', minRole: 'admin' } as const;

export const secretReferenceRoutes: RouteDefinition[] = [
  defineRoute({
    ...common,
    method: 'post',
    path: '/secret-references',
    summary: 'Create a secret reference',
    scope: 'secret_references.create',
    body: createSecretReferenceBody,
    response: secretReferenceSchema,
    status: 201,
    audit: { action: 'secret_references.create', resourceType: 'secret_reference' },
    entity: { table: 'secret_references' },
    async handler({ db, principal, body, mutate, masterKey }) {
      const id = randomUUID();
      const sealed = sealAuth(masterKey, id, body.auth ?? null);
      const allowed = (await workspaceIds(db, principal, body.allowed_workspaces)) ?? [];
      return mutate({ resourceId: id, workspaceId: null }, async (tx) => {
        await lockSlugs(tx.db, `secret_references:${principal.organisationId}`);
        const slug = body.slug ?? (await derivedSlug(tx.db, principal.organisationId, body.name));
        const taken = await secretReferenceDb(tx.db)
          .selectFrom('secret_references')
          .select('id')
          .where('organisation_id', '=', principal.organisationId)
          .where('slug', '=', slug)
          .executeTakeFirst();
        if (taken) throw conflict(`a secret reference with slug "${slug}" already exists`, 'body.slug');
        const row = await secretReferenceDb(tx.db)
          .insertInto('secret_references')
          .values({
            id,
            organisation_id: principal.organisationId,
            name: body.name,
            slug,
            description: body.description ?? null,
            manager: body.manager,
            settings: JSON.stringify(body.settings),
            ...sealed,
            allow_all_workspaces: body.allow_all_workspaces ?? false,
            allowed_workspaces: allowed,
            ...(body.refresh_interval_seconds !== undefined
              ? { refresh_interval_seconds: body.refresh_interval_seconds }
              : {}),
            ...creatorOf(principal),
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return toApi(row);
      });
    },
  }),
  defineRoute({
    ...common,
    method: 'get',
    path: '/secret-references',
    summary: 'List secret references',
    scope: 'secret_references.list',
    query: listSecretReferencesQuery,
    response: secretReferenceListSchema,
    async handler({ db, principal, query }) {
      let base = secretReferenceDb(db)
        .selectFrom('secret_references')
        .where('organisation_id', '=', principal.organisationId);
      if (query.manager !== undefined) base = base.where('manager', '=', query.manager);
      const { limit, offset } = pageBounds(query);
      const page = await readPage(db, base, (q) =>
        q.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(limit).offset(offset),
      );
      return toList(page.rows.map(toApi), page.total);
    },
  }),
  defineRoute({
    ...common,
    method: 'get',
    path: '/secret-references/:secretReferenceId',
    summary: 'Get a secret reference',
    scope: 'secret_references.read',
    params: secretReferenceParams,
    response: secretReferenceSchema,
    entity: { table: 'secret_references' },
    async handler({ db, principal, params }) {
      return toApi(await findReference(db, principal, params.secretReferenceId));
    },
  }),
  defineRoute({
    ...common,
    method: 'put',
    path: '/secret-references/:secretReferenceId',
    summary: 'Update a secret reference',
    scope: 'secret_references.update',
    params: secretReferenceParams,
    body: updateSecretReferenceBody,
    response: secretReferenceSchema,
    audit: { action: 'secret_references.update', resourceType: 'secret_reference' },
    entity: { table: 'secret_references' },
    async handler({ db, principal, params, body, mutate, masterKey }) {
      const before = await findReference(db, principal, params.secretReferenceId);
      const settings =
        body.settings === undefined
          ? undefined
          : parseAs(SETTINGS[before.manager], body.settings, 'body.settings');
      const allowed = await workspaceIds(db, principal, body.allowed_workspaces);
      return mutate({ resourceId: before.id, workspaceId: null }, async (tx) => {
        const current = await findReference(tx.db, principal, before.id, true);
        // Read against the locked row: masked values sent back keep what it stores at their field.
        const auth =
          body.auth === undefined
            ? undefined
            : sealAuth(
                masterKey,
                before.id,
                parseAs(
                  AUTH[before.manager],
                  authSentBack(masterKey, current, body.auth),
                  'body.auth',
                ) as Record<string, string> | null,
              );
        const row = await secretReferenceDb(tx.db)
          .updateTable('secret_references')
          .set({
            ...(body.name !== undefined ? { name: body.name } : {}),
            ...(body.description !== undefined ? { description: body.description } : {}),
            ...(settings !== undefined ? { settings: JSON.stringify(settings) } : {}),
            ...(auth ?? {}),
            ...(body.allow_all_workspaces !== undefined
              ? { allow_all_workspaces: body.allow_all_workspaces }
              : {}),
            ...(allowed !== undefined ? { allowed_workspaces: allowed } : {}),
            ...(body.refresh_interval_seconds !== undefined
              ? { refresh_interval_seconds: body.refresh_interval_seconds }
              : {}),
            version: sql<number>`version + 1`,
            updated_at: new Date(),
          })
          .where('id', '=', before.id)
          .returningAll()
          .executeTakeFirstOrThrow();
        await markDue(tx.db, row.id);
        return toApi(row);
      });
    },
  }),
  defineRoute({
    ...common,
    method: 'delete',
    path: '/secret-references/:secretReferenceId',
    summary: 'Delete a secret reference',
    scope: 'secret_references.delete',
    params: secretReferenceParams,
    response: emptyObject,
    audit: { action: 'secret_references.delete', resourceType: 'secret_reference' },
    entity: { table: 'secret_references' },
    async handler({ db, principal, params, mutate }) {
      const before = await findReference(db, principal, params.secretReferenceId);
      return mutate({ resourceId: before.id, workspaceId: null }, async (tx) => {
        await findReference(tx.db, principal, before.id, true);
        const integrations = await ownersMapping(tx.db, INTEGRATION_SECRETS, before.id);
        const keys = await ownersMapping(tx.db, VIRTUAL_KEY_SECRETS, before.id);
        if (integrations.length + keys.length > 0) {
          const named = [
            ...(integrations.length > 0
              ? [`integrations ${integrations.map((u) => u.slug).join(', ')}`]
              : []),
            ...(keys.length > 0 ? [`virtual keys ${keys.map((u) => u.id).join(', ')}`] : []),
          ];
          throw conflict(
            `${named.join(' and ')} take credentials from this secret reference: remove their secret_mappings first`,
          );
        }
        await secretReferenceDb(tx.db).deleteFrom('secret_references').where('id', '=', before.id).execute();
        return {};
      });
    },
  }),
  defineRoute({
    ...common,
    method: 'post',
    path: '/secret-references/:secretReferenceId/resolve',
    summary: 'Resolve a secret reference now for every integration and virtual key that uses it',
    scope: 'secret_references.update',
    params: secretReferenceParams,
    response: resolutionSchema,
    audit: { action: 'secret_references.resolve', resourceType: 'secret_reference' },
    async handler({ db, principal, params, secrets, mutate }) {
      const ref = await findReference(db, principal, params.secretReferenceId);
      // Each record's resolution commits (and is audited) on its own, as the refresher's does.
      const results: RefreshOutcome[] = [];
      for (const owner of SECRET_OWNERS) {
        for (const user of await ownersMapping(db, owner, ref.id)) {
          const outcome = await refreshOwner(db, secrets, owner, user.id);
          if (outcome) results.push(outcome);
        }
      }
      const of = (type: RefreshOutcome['resource_type']) =>
        results
          .filter((r) => r.resource_type === type)
          .map(({ id, slug, resolved, changed, error }) => ({ id, slug, resolved, changed, error }));
      return mutate({ resourceId: ref.id, workspaceId: null }, async () => ({
        object: 'secret_reference_resolution' as const,
        secret_reference_id: ref.id,
        integrations: of('integration'),
        virtual_keys: of('virtual_key'),
      }));
    },
  }),
];
