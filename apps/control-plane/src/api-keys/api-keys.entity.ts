// API key rows as gateways receive them (proto Entity: hash, scopes, status, expiry; never the key).
import { ApiKeyType, type Entity, EntityKind, EntityStatus } from '@aigw/proto';
import type { Selectable } from 'kysely';
import type { ApiKeysTable } from '../db/schema.js';
import {
  type RateLimitInput,
  rateLimitsToProto,
  type UsageLimitInput,
  usageLimitsToProto,
} from '../limits/limits.schema.js';

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

export function apiKeyEntity(row: ApiKeyRow): Entity {
  const defaults = row.defaults as { metadata?: Record<string, string>; config_id?: string };
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
        defaults: { metadata: defaults.metadata ?? {}, configId: defaults.config_id ?? '' },
        rateLimits: rateLimitsToProto(row.rate_limits as RateLimitInput[]),
        usageLimits: usageLimitsToProto(row.usage_limits as UsageLimitInput[]),
        createdAtMs: row.created_at.getTime(),
      },
    },
  };
}
