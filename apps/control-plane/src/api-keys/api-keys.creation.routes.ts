// Creating API keys (spec 4.4): admin keys by organisation owners and admins, workspace user and
// service keys by them or by the workspace's managers. The raw key is returned here once.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { conflict, limitReached } from '../api-errors.js';
import { generateApiKey } from '../auth/api-key-secret.js';
import type { Principal } from '../auth/principal.js';
import { isUuid, visibleWorkspace } from '../auth/visibility.js';
import type { ApiKeyType, ControlDatabase } from '../db/schema.js';
import { defineRoute, type RouteContext, type RouteDefinition } from '../http/route.js';
import { apiKeyEntity, apiKeyWithSecret } from './api-keys.entity.js';
import {
  assertScopesHeld,
  assertWorkspaceScopes,
  expiryOnCreate,
  workspaceKeySettings,
} from './api-keys.policy.js';
import { countUserKeys, keyOwner } from './api-keys.repository.js';
import {
  apiKeyWithSecretSchema,
  type CreateKeyBody,
  createAdminKeyBody,
  createServiceKeyBody,
  createUserKeyBody,
} from './api-keys.schema.js';

type Mutate = RouteContext<unknown, unknown, unknown>['mutate'];

interface NewKey {
  readonly type: ApiKeyType;
  readonly workspaceId: string | null;
  readonly userId: string | null;
  readonly body: CreateKeyBody;
  readonly expiresAt: Date | null;
  /** Runs in the creating transaction before the insert (the per-user limit). */
  readonly beforeInsert?: (trx: Kysely<ControlDatabase>) => Promise<void>;
}

async function createKey(mutate: Mutate, principal: Principal, spec: NewKey) {
  const id = randomUUID();
  const secret = generateApiKey();
  const { body } = spec;
  return mutate({ resourceId: id, workspaceId: spec.workspaceId }, async (tx) => {
    await spec.beforeInsert?.(tx.db);
    const row = await tx.db
      .insertInto('api_keys')
      .values({
        id,
        organisation_id: principal.organisationId,
        workspace_id: spec.workspaceId,
        user_id: spec.userId,
        type: spec.type,
        name: body.name,
        description: body.description ?? '',
        key_hash: secret.hash,
        last4: secret.last4,
        scopes: body.scopes,
        expires_at: spec.expiresAt,
        rate_limits: JSON.stringify(body.rate_limits ?? []),
        usage_limits: JSON.stringify(body.usage_limits ?? []),
        defaults: JSON.stringify(body.defaults ?? {}),
        // A token subject need not be a user row id; only real user ids are kept.
        created_by_user_id: principal.userId !== null && isUuid(principal.userId) ? principal.userId : null,
        created_by_api_key_id: principal.apiKeyId,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await tx.change(apiKeyEntity(row));
    return apiKeyWithSecret(row, secret.key);
  });
}

type WorkspaceKeyContext = RouteContext<unknown, unknown, CreateKeyBody & { workspace_id: string }>;

async function createWorkspaceKey(
  ctx: WorkspaceKeyContext,
  type: 'workspace' | 'service',
  requestedUserId: string | undefined,
) {
  const { db, principal, body } = ctx;
  const workspace = await visibleWorkspace(db, principal, body.workspace_id);
  if (workspace.status !== 'active') throw conflict('the workspace is archived', 'body.workspace_id');
  assertWorkspaceScopes(body.scopes);
  assertScopesHeld(principal, body.scopes);
  const settings = workspaceKeySettings(workspace.settings);
  const expiresAt = expiryOnCreate(settings, body.expires_at, new Date());
  const userId = type === 'workspace' ? await keyOwner(db, principal, workspace.id, requestedUserId) : null;
  const max = settings.maxApiKeysPerUser;
  return createKey(ctx.mutate, principal, {
    type,
    workspaceId: workspace.id,
    userId,
    body,
    expiresAt,
    ...(userId !== null && max > 0
      ? {
          beforeInsert: async (trx) => {
            if ((await countUserKeys(trx, workspace.id, userId)) >= max) {
              throw limitReached(`this user already has the workspace's maximum of ${max} API keys`);
            }
          },
        }
      : {}),
  });
}

const AUDIT = { action: 'api_keys.create', resourceType: 'api_key' } as const;

export const apiKeyCreationRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'post',
    path: '/api-keys/organisation/service',
    tag: 'API keys',
    summary: 'Create an admin API key',
    scope: 'api_keys.create',
    level: 'organisation',
    minRole: 'admin',
    body: createAdminKeyBody,
    response: apiKeyWithSecretSchema,
    status: 201,
    audit: AUDIT,
    entity: { table: 'api_keys' },
    async handler({ principal, body, mutate }) {
      assertScopesHeld(principal, body.scopes);
      return createKey(mutate, principal, {
        type: 'admin',
        workspaceId: null,
        userId: null,
        body,
        expiresAt: body.expires_at ?? null,
      });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api-keys/workspace/user',
    tag: 'API keys',
    summary: 'Create a workspace user API key',
    scope: 'api_keys.create',
    level: 'workspace',
    minRole: 'manager',
    body: createUserKeyBody,
    response: apiKeyWithSecretSchema,
    status: 201,
    audit: AUDIT,
    entity: { table: 'api_keys' },
    handler: (ctx) => createWorkspaceKey(ctx, 'workspace', ctx.body.user_id),
  }),
  defineRoute({
    method: 'post',
    path: '/api-keys/workspace/service',
    tag: 'API keys',
    summary: 'Create a workspace service API key',
    scope: 'api_keys.create',
    level: 'workspace',
    minRole: 'manager',
    body: createServiceKeyBody,
    response: apiKeyWithSecretSchema,
    status: 201,
    audit: AUDIT,
    entity: { table: 'api_keys' },
    handler: (ctx) => createWorkspaceKey(ctx, 'service', undefined),
  }),
];
