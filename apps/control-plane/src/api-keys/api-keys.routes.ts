// Listing, reading, changing, rotating and deleting API keys; every key outside the caller's
// organisation, workspace (or, for members, outside its own keys) is 404.
import { EntityKind } from '@aigw/proto';
import { type Kysely, sql } from 'kysely';
import { conflict, invalid, limitReached } from '../api-errors.js';
import { generateApiKey } from '../auth/api-key-secret.js';
import type { Principal } from '../auth/principal.js';
import { lookupWorkspace } from '../auth/visibility.js';
import type { ControlDatabase } from '../db/schema.js';
import { toList } from '../http/list.js';
import { defineRoute, emptyObject, type RouteDefinition } from '../http/route.js';
import { resetEntityLimitAlerts } from '../policies/policy-alerts.js';
import { writeTombstone } from '../tombstones/tombstones.js';
import { fillCurrentUsage } from '../usage/current-usage.js';
import { apiKeyCreationRoutes } from './api-keys.creation.routes.js';
import {
  type ApiKeyRow,
  apiKeyEntity,
  apiKeyToApi,
  apiKeyUsage,
  apiKeyWithSecret,
} from './api-keys.entity.js';
import {
  assertScopesHeld,
  assertWorkspaceScopes,
  expiryOnUpdate,
  workspaceKeySettings,
} from './api-keys.policy.js';
import { countUserKeys, findVisibleKey, listKeys } from './api-keys.repository.js';
import {
  apiKeyListSchema,
  apiKeyParams,
  apiKeySchema,
  apiKeyWithSecretSchema,
  listKeysQuery,
  type UpdateKeyBody,
  updateKeyBody,
} from './api-keys.schema.js';

const TAG = 'API keys';

async function keySettings(db: Kysely<ControlDatabase>, key: ApiKeyRow) {
  if (key.workspace_id === null) return workspaceKeySettings({});
  const workspace = await db
    .selectFrom('workspaces')
    .select('settings')
    .where('id', '=', key.workspace_id)
    .executeTakeFirstOrThrow();
  return workspaceKeySettings(workspace.settings);
}

/** Checks an update against the caller and the workspace; returns the new expiry (undefined: unchanged). */
async function checkUpdate(
  db: Kysely<ControlDatabase>,
  principal: Principal,
  key: ApiKeyRow,
  body: UpdateKeyBody,
): Promise<Date | null | undefined> {
  if (body.scopes) {
    if (key.type !== 'admin') assertWorkspaceScopes(body.scopes);
    assertScopesHeld(principal, body.scopes);
  }
  if (body.status === 'disabled' && key.id === principal.apiKeyId) {
    throw conflict('a key cannot disable itself; use another key', 'body.status');
  }
  const settings = await keySettings(db, key);
  const expiresAt =
    body.expires_at === undefined ? undefined : expiryOnUpdate(settings, body.expires_at, new Date());
  if (body.status === 'active' && key.status !== 'active') {
    const effective = expiresAt === undefined ? key.expires_at : expiresAt;
    if (effective !== null && effective.getTime() <= Date.now()) {
      throw invalid('an expired key can be reactivated only with a future expires_at', 'body.expires_at');
    }
  }
  return expiresAt;
}

/** Reactivating a user key counts against the workspace's per-user limit again. */
async function checkReactivation(trx: Kysely<ControlDatabase>, key: ApiKeyRow, body: UpdateKeyBody) {
  const reactivates = body.status === 'active' && (key.status === 'expired' || key.status === 'archived');
  if (!reactivates || key.type !== 'workspace' || key.workspace_id === null || key.user_id === null) return;
  const max = (await keySettings(trx, key)).maxApiKeysPerUser;
  if (max > 0 && (await countUserKeys(trx, key.workspace_id, key.user_id)) >= max) {
    throw limitReached(`this user already has the workspace's maximum of ${max} API keys`);
  }
}

export const apiKeyRoutes: RouteDefinition[] = [
  ...apiKeyCreationRoutes,
  defineRoute({
    method: 'get',
    path: '/api-keys',
    tag: TAG,
    summary: 'List API keys',
    scope: 'api_keys.list',
    level: 'workspace',
    query: listKeysQuery,
    response: apiKeyListSchema,
    async handler(ctx) {
      const { db, principal, query } = ctx;
      const workspaceId = await lookupWorkspace(db, principal, query.workspace_id);
      const { rows, total } = await listKeys(db, principal, query, workspaceId);
      const keys = rows.map(apiKeyToApi);
      await fillCurrentUsage(ctx, keys.map(apiKeyUsage));
      return toList(keys, total);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api-keys/:apiKeyId',
    tag: TAG,
    summary: 'Get an API key',
    scope: 'api_keys.read',
    level: 'workspace',
    params: apiKeyParams,
    response: apiKeySchema,
    entity: { table: 'api_keys' },
    async handler(ctx) {
      const key = apiKeyToApi(await findVisibleKey(ctx.db, ctx.principal, ctx.params.apiKeyId));
      await fillCurrentUsage(ctx, [apiKeyUsage(key)]);
      return key;
    },
  }),
  defineRoute({
    method: 'put',
    path: '/api-keys/:apiKeyId',
    tag: TAG,
    summary: 'Update an API key',
    scope: 'api_keys.update',
    level: 'workspace',
    minRole: 'manager',
    params: apiKeyParams,
    body: updateKeyBody,
    response: apiKeySchema,
    audit: { action: 'api_keys.update', resourceType: 'api_key' },
    entity: { table: 'api_keys' },
    async handler(ctx) {
      const { db, principal, params, body, mutate } = ctx;
      const before = await findVisibleKey(db, principal, params.apiKeyId);
      const expiresAt = await checkUpdate(db, principal, before, body);
      const updated = await mutate(
        { resourceId: before.id, workspaceId: before.workspace_id },
        async (tx) => {
          const key = await findVisibleKey(tx.db, principal, before.id, { forUpdate: true });
          await checkReactivation(tx.db, key, body);
          const row = await tx.db
            .updateTable('api_keys')
            .set({
              ...(body.name !== undefined ? { name: body.name } : {}),
              ...(body.description !== undefined ? { description: body.description } : {}),
              ...(body.scopes !== undefined ? { scopes: body.scopes } : {}),
              ...(body.status !== undefined ? { status: body.status } : {}),
              ...(expiresAt !== undefined ? { expires_at: expiresAt } : {}),
              ...(body.rate_limits !== undefined
                ? { rate_limits: JSON.stringify(body.rate_limits ?? []) }
                : {}),
              ...(body.usage_limits !== undefined
                ? { usage_limits: JSON.stringify(body.usage_limits ?? []) }
                : {}),
              ...(body.defaults !== undefined ? { defaults: JSON.stringify(body.defaults) } : {}),
              version: sql<number>`version + 1`,
              updated_at: new Date(),
            })
            .where('id', '=', key.id)
            .returningAll()
            .executeTakeFirstOrThrow();
          await resetEntityLimitAlerts(
            tx.db,
            { kind: 'api_key', id: key.id },
            key.usage_limits,
            row.usage_limits,
          );
          await tx.change(apiKeyEntity(row));
          return apiKeyToApi(row);
        },
      );
      await fillCurrentUsage(ctx, [apiKeyUsage(updated)]);
      return updated;
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api-keys/:apiKeyId/rotate',
    tag: TAG,
    summary: 'Rotate an API key',
    scope: 'api_keys.rotate',
    level: 'workspace',
    minRole: 'manager',
    params: apiKeyParams,
    body: emptyObject,
    response: apiKeyWithSecretSchema,
    audit: { action: 'api_keys.rotate', resourceType: 'api_key' },
    async handler({ db, principal, params, mutate }) {
      const before = await findVisibleKey(db, principal, params.apiKeyId);
      const secret = generateApiKey();
      return mutate({ resourceId: before.id, workspaceId: before.workspace_id }, async (tx) => {
        const key = await findVisibleKey(tx.db, principal, before.id, { forUpdate: true });
        // The caller receives the new secret, so it must already hold everything the key can do.
        assertScopesHeld(principal, key.scopes);
        const row = await tx.db
          .updateTable('api_keys')
          .set({
            key_hash: secret.hash,
            last4: secret.last4,
            rotated_at: new Date(),
            version: sql<number>`version + 1`,
            updated_at: new Date(),
          })
          .where('id', '=', key.id)
          .returningAll()
          .executeTakeFirstOrThrow();
        await tx.change(apiKeyEntity(row));
        return apiKeyWithSecret(row, secret.key);
      });
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api-keys/:apiKeyId',
    tag: TAG,
    summary: 'Delete an API key',
    scope: 'api_keys.delete',
    level: 'workspace',
    minRole: 'manager',
    params: apiKeyParams,
    response: emptyObject,
    audit: { action: 'api_keys.delete', resourceType: 'api_key' },
    entity: { table: 'api_keys' },
    async handler({ db, principal, params, mutate }) {
      const before = await findVisibleKey(db, principal, params.apiKeyId);
      if (before.id === principal.apiKeyId) throw conflict('a key cannot delete itself; use another key');
      return mutate({ resourceId: before.id, workspaceId: before.workspace_id }, async (tx) => {
        const key = await findVisibleKey(tx.db, principal, before.id, { forUpdate: true });
        await tx.db.deleteFrom('api_keys').where('id', '=', key.id).execute();
        const tombstone = await writeTombstone(tx.db, {
          kind: EntityKind.API_KEY,
          id: key.id,
          organisationId: key.organisation_id,
          workspaceId: key.workspace_id,
          lastVersion: Number(key.version),
        });
        await tx.change(tombstone);
        return {};
      });
    },
  }),
];
