// A legacy virtual key is a provider row seen through the old API: its own response shape, and a
// VIRTUAL_KEY entity (same id and version as the PROVIDER entity) whose provider_id points at the
// provider, so a gateway resolves `x-service-virtual-key: <slug>` to the provider it already holds.
import { type Entity, EntityKind } from '@aigw/proto';
import type { Kysely } from 'kysely';
import type { ControlDatabase } from '../db/schema.js';
import { secretStateToApi } from '../integrations/secret-state.js';
import { PROVIDER_STATUS, type ProviderRow, providerToApi } from './providers.entity.js';

/** The masked key of api-key credentials (`****abcd`); null for other shapes and integration keys. */
function maskedKey(row: ProviderRow): string | null {
  const apiKey = row.masked_credentials?.api_key;
  return typeof apiKey === 'string' ? apiKey : null;
}

export function virtualKeyToApi(row: ProviderRow) {
  const provider = providerToApi(row);
  return {
    id: row.id,
    object: 'virtual-key' as const,
    organisation_id: row.organisation_id,
    workspace_id: row.workspace_id,
    name: row.name,
    slug: row.slug,
    note: row.note,
    provider: provider.ai_provider,
    provider_id: row.id,
    integration_id: row.integration_id,
    key: maskedKey(row),
    credentials: row.masked_credentials,
    options: row.options,
    ...secretStateToApi(row),
    status: provider.status,
    allowed_models: row.allowed_models,
    rate_limits: provider.rate_limits,
    usage_limits: provider.usage_limits,
    expires_at: provider.expires_at,
    created_at: provider.created_at,
    last_updated_at: provider.last_updated_at,
  };
}

/** Carries no credentials of its own: the gateway takes them from the provider (provider_id). */
export function virtualKeyEntity(row: ProviderRow): Entity {
  return {
    kind: EntityKind.VIRTUAL_KEY,
    id: row.id,
    version: Number(row.version),
    tombstone: false,
    organisationId: row.organisation_id,
    workspaceId: row.workspace_id,
    updatedAtMs: row.updated_at.getTime(),
    body: {
      $case: 'virtualKey',
      value: {
        name: row.name,
        slug: row.slug,
        aiProvider: row.ai_provider,
        status: PROVIDER_STATUS[row.status],
        encryptedCredentials: Buffer.alloc(0),
        options: {},
        allowedModels: [],
        rateLimits: [],
        usageLimits: [],
        expiresAtMs: row.expires_at?.getTime() ?? 0,
        providerId: row.id,
      },
    },
  };
}

/** Snapshot reader: one virtual key per provider row. */
export async function readVirtualKeyEntities(trx: Kysely<ControlDatabase>): Promise<Entity[]> {
  return (await trx.selectFrom('providers').selectAll().execute()).map(virtualKeyEntity);
}
