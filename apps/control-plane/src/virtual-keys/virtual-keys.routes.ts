// Legacy virtual keys: the old API over the providers table. A virtual key created here holds its own
// credentials (sealed with AAD `provider:<id>`), some or all of them possibly taken from secret
// references (`secret_mappings`, resolved now and refreshed like an integration's:
// integrations/secret-mappings.ts); every provider is also readable here as a key.
import { randomUUID } from 'node:crypto';
import { conflict, invalid } from '../api-errors.js';
import { lookupWorkspace, targetWorkspace } from '../auth/visibility.js';
import { toList } from '../http/list.js';
import { defineRoute, emptyObject, type RouteDefinition } from '../http/route.js';
import { credentialColumns } from '../integrations/credentials.seal.js';
import { credentialsSentBack, keySentBack, sameCredentials } from '../integrations/credentials.sent-back.js';
import { slugFromName } from '../integrations/integrations.schema.js';
import { parseOptions } from '../integrations/options.js';
import type { AiProvider } from '../integrations/provider-types.js';
import { createdSecretColumns, updatedSecretColumns } from '../integrations/secret-write-columns.js';
import { changedColumns, limitColumns } from '../providers/providers.columns.js';
import { showProviderUsage } from '../providers/providers.entity.js';
import {
  creatorOf,
  deleteProvider,
  findVisibleProvider,
  insertProvider,
  listProviders,
  updateProvider,
} from '../providers/providers.repository.js';
import { VIRTUAL_KEY_SECRETS, virtualKeyReach } from '../providers/virtual-key-secrets.js';
import { virtualKeyToApi } from '../providers/virtual-keys.entity.js';
import {
  createVirtualKeyBody,
  listVirtualKeysQuery,
  updateVirtualKeyBody,
  virtualKeyListSchema,
  virtualKeyParams,
  virtualKeySchema,
} from './virtual-keys.schema.js';

const TAG = 'Virtual keys';
const WHAT = { what: 'virtual key' };

/** `key` is shorthand for `credentials: {api_key}`; giving both is ambiguous. */
function credentialsInput(body: { key?: string; credentials?: Record<string, unknown> | null }) {
  if (body.key !== undefined && body.credentials !== undefined) {
    throw invalid('body.key: give key or credentials, not both', 'body.key');
  }
  return body.key !== undefined ? { api_key: body.key } : body.credentials;
}

export const virtualKeyRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'post',
    path: '/virtual-keys',
    tag: TAG,
    summary: 'Create a virtual key',
    scope: 'virtual_keys.create',
    level: 'workspace',
    minRole: 'manager',
    body: createVirtualKeyBody,
    response: virtualKeySchema,
    status: 201,
    audit: { action: 'virtual_keys.create', resourceType: 'virtual_key' },
    entity: { table: 'providers' },
    async handler({ db, principal, body, mutate, secrets }) {
      const workspace = await targetWorkspace(db, principal, body.workspace_id, 'body.workspace_id');
      if (workspace.status === 'archived') throw conflict('the workspace is archived', 'body.workspace_id');
      const id = randomUUID();
      const options = parseOptions(body.provider, body.options ?? {}, 'body.options');
      // Mapped fields are read from their managers now, before anything is written: a reference that
      // does not resolve, or does not allow this workspace, is a 400 and no key is created.
      const { credentials, columns: secretColumns } = await createdSecretColumns(
        db,
        secrets,
        { type: body.provider, owner: 'provider', id, organisationId: workspace.organisation_id },
        virtualKeyReach(workspace.id),
        { secret_mappings: body.secret_mappings, credentials: credentialsInput(body) ?? null },
        'body.credentials',
      );
      return mutate({ resourceId: id, workspaceId: workspace.id }, async (tx) => {
        const row = await insertProvider(
          tx,
          {
            id,
            organisation_id: workspace.organisation_id,
            workspace_id: workspace.id,
            integration_id: null,
            name: body.name,
            slug: body.slug ?? slugFromName(body.name, 'virtual-key'),
            note: body.note ?? '',
            ai_provider: body.provider,
            ...credentials,
            ...secretColumns,
            options: JSON.stringify(options),
            ...limitColumns(body),
            ...creatorOf(principal),
          },
          'body.slug',
        );
        return virtualKeyToApi(row);
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/virtual-keys',
    tag: TAG,
    summary: 'List virtual keys',
    scope: 'virtual_keys.list',
    level: 'workspace',
    query: listVirtualKeysQuery,
    response: virtualKeyListSchema,
    async handler(ctx) {
      const { db, principal, query } = ctx;
      const workspaceId = await lookupWorkspace(db, principal, query.workspace_id);
      const { rows, total } = await listProviders(db, principal, {
        page_size: query.page_size,
        current_page: query.current_page,
        ...(workspaceId !== undefined ? { workspaceId } : {}),
        ...(query.provider ? { ai_provider: query.provider } : {}),
        ...(query.status ? { status: query.status } : {}),
      });
      const keys = rows.map(virtualKeyToApi);
      await showProviderUsage(ctx, keys);
      return toList(keys, total);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/virtual-keys/:virtualKeyId',
    tag: TAG,
    summary: 'Get a virtual key',
    scope: 'virtual_keys.read',
    level: 'workspace',
    params: virtualKeyParams,
    response: virtualKeySchema,
    entity: { table: 'providers' },
    async handler(ctx) {
      const key = virtualKeyToApi(
        await findVisibleProvider(ctx.db, ctx.principal, ctx.params.virtualKeyId, WHAT),
      );
      await showProviderUsage(ctx, [key]);
      return key;
    },
  }),
  defineRoute({
    method: 'put',
    path: '/virtual-keys/:virtualKeyId',
    tag: TAG,
    summary: 'Update a virtual key',
    scope: 'virtual_keys.update',
    level: 'workspace',
    minRole: 'manager',
    params: virtualKeyParams,
    body: updateVirtualKeyBody,
    response: virtualKeySchema,
    audit: { action: 'virtual_keys.update', resourceType: 'virtual_key' },
    entity: { table: 'providers' },
    async handler(ctx) {
      const { db, principal, params, body, mutate, masterKey, secrets } = ctx;
      const before = await findVisibleProvider(db, principal, params.virtualKeyId, WHAT);
      const credentialsParam = body.key !== undefined ? 'body.key' : 'body.credentials';
      if (
        before.integration_id !== null &&
        (credentialsInput(body) !== undefined ||
          body.options !== undefined ||
          body.secret_mappings !== undefined)
      ) {
        throw conflict(
          'this virtual key uses the credentials and options of its integration; change them there',
          credentialsInput(body) !== undefined
            ? credentialsParam
            : body.options !== undefined
              ? 'body.options'
              : 'body.secret_mappings',
        );
      }
      // Masked values sent back keep what is stored at their field (credentials.sent-back.ts).
      const sent =
        body.key !== undefined
          ? keySentBack(masterKey, before, body.key, 'body.key')
          : credentialsSentBack(masterKey, 'provider', before, credentialsInput(body), 'body.credentials');
      const input = sent.credentials;
      const type = before.ai_provider as AiProvider;
      const options =
        body.options === undefined ? undefined : parseOptions(type, body.options, 'body.options');
      // New mappings, or new credentials of a mapped key, are resolved now (a 400 writes nothing).
      const secretColumns = await updatedSecretColumns(
        db,
        secrets,
        VIRTUAL_KEY_SECRETS,
        before,
        virtualKeyReach(before.workspace_id),
        {
          secret_mappings: body.secret_mappings,
          credentials: input,
          credentialsParam,
          reachChanged: false,
        },
      );
      const target = { type, owner: 'provider' as const, id: before.id, masterKey };
      const credentials = secretColumns?.credentials ?? credentialColumns(input, target, 'body.credentials');
      const updated = await mutate(
        { resourceId: before.id, workspaceId: before.workspace_id },
        async (tx) => {
          const current = await findVisibleProvider(tx.db, principal, before.id, {
            forUpdate: true,
            ...WHAT,
          });
          sameCredentials(sent, current, before, 'virtual key');
          const row = await updateProvider(
            tx,
            current.id,
            {
              ...changedColumns(body),
              ...credentials,
              ...(secretColumns?.columns ?? {}),
              ...(options !== undefined ? { options: JSON.stringify(options) } : {}),
            },
            body.slug ?? current.slug,
          );
          return virtualKeyToApi(row);
        },
      );
      await showProviderUsage(ctx, [updated]);
      return updated;
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/virtual-keys/:virtualKeyId',
    tag: TAG,
    summary: 'Delete a virtual key',
    scope: 'virtual_keys.delete',
    level: 'workspace',
    minRole: 'manager',
    params: virtualKeyParams,
    response: emptyObject,
    audit: { action: 'virtual_keys.delete', resourceType: 'virtual_key' },
    entity: { table: 'providers' },
    async handler({ db, principal, params, mutate }) {
      const before = await findVisibleProvider(db, principal, params.virtualKeyId, WHAT);
      return mutate({ resourceId: before.id, workspaceId: before.workspace_id }, async (tx) => {
        await deleteProvider(
          tx,
          await findVisibleProvider(tx.db, principal, before.id, { forUpdate: true, ...WHAT }),
        );
        return {};
      });
    },
  }),
];
