// API key rows as gateways receive them (proto Entity: hash, scopes, status, expiry) and as the admin
// API returns them (never the key nor its hash).
import { ApiKeyType, type Entity, EntityKind, EntityStatus } from '@aigw/proto';
import type { Selectable } from 'kysely';
import { API_KEY_PREFIX } from '../auth/api-key-secret.js';
import type { ApiKeysTable } from '../db/schema.js';
import {
  type RateLimitInput,
  rateLimitsToProto,
  type UsageLimitInput,
  usageLimitsToProto,
} from '../limits/limits.schema.js';
import type { LimitOwner } from '../usage/current-usage.js';

export type ApiKeyRow = Selectable<ApiKeysTable>;

const TYPES = {
  admin: ApiKeyType.ADMIN,
  workspace: ApiKeyType.WORKSPACE,
  service: ApiKeyType.SERVICE,
} as const;
const STATUSES = {
  active: EntityStatus.ACTIVE,
  expired: EntityStatus.EXPIRED,
  disabled: EntityStatus.DISABLED,
  archived: EntityStatus.ARCHIVED,
} as const;

/** `api_keys.defaults` as the admin API stored it. */
interface StoredDefaults {
  readonly metadata?: Record<string, string>;
  readonly config_id?: string;
  readonly allow_config_override?: boolean;
}

export function apiKeyEntity(row: ApiKeyRow): Entity {
  const defaults = row.defaults as StoredDefaults;
  return {
    kind: EntityKind.API_KEY,
    id: row.id,
    version: Number(row.version),
    tombstone: false,
    organisationId: row.organisation_id,
    workspaceId: row.workspace_id ?? '',
    updatedAtMs: row.updated_at.getTime(),
    body: {
      $case: 'apiKey',
      value: {
        name: row.name,
        keyHash: row.key_hash,
        last4: row.last4,
        type: TYPES[row.type],
        scopes: row.scopes,
        status: STATUSES[row.status],
        expiresAtMs: row.expires_at?.getTime() ?? 0,
        userId: row.user_id ?? '',
        defaults: {
          metadata: defaults.metadata ?? {},
          configId: defaults.config_id ?? '',
          configEnforced: defaults.allow_config_override === false && Boolean(defaults.config_id),
        },
        rateLimits: rateLimitsToProto(row.rate_limits as RateLimitInput[]),
        usageLimits: usageLimitsToProto(row.usage_limits as UsageLimitInput[]),
        createdAtMs: row.created_at.getTime(),
      },
    },
  };
}

/** `aigw_...abcd`: enough to recognise a key, never enough to use it. */
export function maskedKey(last4: string): string {
  return `${API_KEY_PREFIX}...${last4}`;
}

/** The key as the admin API returns it: never the raw key nor its hash. */
export function apiKeyToApi(row: ApiKeyRow) {
  const defaults = row.defaults as StoredDefaults;
  return {
    id: row.id,
    object: 'api-key' as const,
    type: row.type,
    name: row.name,
    description: row.description,
    organisation_id: row.organisation_id,
    workspace_id: row.workspace_id,
    user_id: row.user_id,
    scopes: row.scopes,
    status: row.status,
    last4: row.last4,
    masked_key: maskedKey(row.last4),
    expires_at: row.expires_at?.toISOString() ?? null,
    rate_limits: row.rate_limits as RateLimitInput[],
    // 0 until a route fills it from the usage ledger (apiKeyUsage); fractional USD for cost.
    usage_limits: (row.usage_limits as UsageLimitInput[]).map((limit) => ({ ...limit, current_usage: 0 })),
    defaults: {
      metadata: defaults.metadata ?? {},
      config_id: defaults.config_id ?? null,
      allow_config_override: defaults.allow_config_override !== false,
    },
    created_by_user_id: row.created_by_user_id,
    created_by_api_key_id: row.created_by_api_key_id,
    created_at: row.created_at.toISOString(),
    last_updated_at: row.updated_at.toISOString(),
    rotated_at: row.rotated_at?.toISOString() ?? null,
  };
}

/** The key's usage limits for fillCurrentUsage (limits set on a key count under `api_key`). */
export function apiKeyUsage(key: ReturnType<typeof apiKeyToApi>): LimitOwner {
  return { kind: 'api_key', id: key.id, limits: key.usage_limits };
}

/** Creation and rotation answers: the only two places the raw key ever appears. */
export function apiKeyWithSecret(row: ApiKeyRow, key: string) {
  return { ...apiKeyToApi(row), key };
}
