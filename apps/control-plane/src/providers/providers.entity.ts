// Provider rows as the API returns them (status derived, credentials masked) and as gateways receive
// them (proto Entity). A row is also a legacy virtual key: see virtual-keys.entity.ts.
import { type Entity, EntityKind, EntityStatus } from '@aigw/proto';
import type { Kysely, Selectable } from 'kysely';
import type { ControlDatabase, ProviderStoredStatus, ProvidersTable } from '../db/schema.js';
import { usageLimitsToApi } from '../integrations/integrations.entity.js';
import { optionsToProto } from '../integrations/options.js';
import type { AiProvider } from '../integrations/provider-types.js';
import { withheldMessage } from '../integrations/secret-state.js';
import {
  type RateLimitInput,
  rateLimitsToProto,
  type UsageLimitInput,
  usageLimitsToProto,
} from '../limits/limits.schema.js';
import { fillCurrentUsage, type ShownLimit } from '../usage/current-usage.js';
import type { UsageContext } from '../usage/usage-reader.js';

export type ProviderRow = Selectable<ProvidersTable>;

export type ProviderStatus = ProviderStoredStatus | 'exhausted';

export const PROVIDER_STATUS: Readonly<Record<ProviderStoredStatus, EntityStatus>> = {
  active: EntityStatus.ACTIVE,
  expired: EntityStatus.EXPIRED,
  disabled: EntityStatus.DISABLED,
  archived: EntityStatus.ARCHIVED,
};

/**
 * The status responses show. `exhausted` is never stored (ARCHITECTURE part 4): it holds while some
 * usage limit is used up, so raising the limit reactivates at once; `expired` also holds as soon as
 * `expires_at` passes, without waiting for anything to mark it.
 */
export function providerStatus(
  row: Pick<ProviderRow, 'status' | 'expires_at' | 'usage_limits'>,
  now: Date,
  usage: (limit: UsageLimitInput) => number,
): ProviderStatus {
  if (row.status !== 'active') return row.status;
  if (row.expires_at !== null && row.expires_at.getTime() <= now.getTime()) return 'expired';
  const limits = row.usage_limits as UsageLimitInput[];
  if (limits.some((limit) => usage(limit) >= limit.credit_limit)) return 'exhausted';
  return 'active';
}

/** The status before usage is known; showProviderUsage turns it into `exhausted` when due. */
const NO_USAGE = () => 0;

interface ShownProvider {
  readonly id: string;
  status: ProviderStatus;
  readonly usage_limits: readonly (ShownLimit & { readonly credit_limit: number })[];
}

/**
 * Fills `current_usage` of providers (or of virtual keys, which are provider rows: their limits
 * count under `provider`) from the usage ledger, then marks those using up a limit `exhausted`.
 */
export async function showProviderUsage(
  ctx: UsageContext,
  providers: readonly ShownProvider[],
): Promise<void> {
  await fillCurrentUsage(
    ctx,
    providers.map((p) => ({ kind: 'provider', id: p.id, limits: p.usage_limits })),
  );
  for (const p of providers) {
    if (p.status === 'active' && p.usage_limits.some((l) => l.current_usage >= l.credit_limit))
      p.status = 'exhausted';
  }
}

export function providerToApi(row: ProviderRow) {
  return {
    id: row.id,
    object: 'provider' as const,
    organisation_id: row.organisation_id,
    workspace_id: row.workspace_id,
    integration_id: row.integration_id,
    ai_provider: row.ai_provider as AiProvider,
    name: row.name,
    slug: row.slug,
    note: row.note,
    status: providerStatus(row, new Date(), NO_USAGE) as ProviderStatus,
    credentials: row.masked_credentials,
    options: row.options,
    allowed_models: row.allowed_models,
    rate_limits: row.rate_limits as RateLimitInput[],
    usage_limits: usageLimitsToApi(row.usage_limits),
    expires_at: row.expires_at?.toISOString() ?? null,
    tags: row.tags,
    created_by_user_id: row.created_by_user_id,
    created_by_api_key_id: row.created_by_api_key_id,
    created_at: row.created_at.toISOString(),
    last_updated_at: row.updated_at.toISOString(),
  };
}

export function providerEntity(row: ProviderRow): Entity {
  return {
    kind: EntityKind.PROVIDER,
    id: row.id,
    version: Number(row.version),
    tombstone: false,
    organisationId: row.organisation_id,
    workspaceId: row.workspace_id,
    updatedAtMs: row.updated_at.getTime(),
    body: {
      $case: 'provider',
      value: {
        name: row.name,
        slug: row.slug,
        integrationId: row.integration_id ?? '',
        aiProvider: row.ai_provider,
        status: PROVIDER_STATUS[row.status],
        // Withheld: its secret references failed past the refresh window (as an integration's).
        encryptedCredentials: row.secrets_withheld
          ? Buffer.alloc(0)
          : (row.encrypted_credentials ?? Buffer.alloc(0)),
        credentialError: row.secrets_withheld ? withheldMessage(row.secrets_error) : '',
        options: optionsToProto(row.options),
        allowedModels: row.allowed_models,
        rateLimits: rateLimitsToProto(row.rate_limits as RateLimitInput[]),
        usageLimits: usageLimitsToProto(row.usage_limits as UsageLimitInput[]),
        expiresAtMs: row.expires_at?.getTime() ?? 0,
        tags: row.tags,
      },
    },
  };
}

/** Snapshot reader: every provider of every workspace. */
export async function readProviderEntities(trx: Kysely<ControlDatabase>): Promise<Entity[]> {
  return (await trx.selectFrom('providers').selectAll().execute()).map(providerEntity);
}
