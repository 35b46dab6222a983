// Workspace rows as the API returns them and as gateways receive them (proto Entity).
import { type Entity, EntityKind, EntityStatus } from '@aigw/proto';
import type { Kysely, Selectable } from 'kysely';
import { z } from 'zod';
import type { ControlDatabase, WorkspacesTable } from '../db/schema.js';
import { usageLimitsToApi } from '../integrations/integrations.entity.js';
import {
  type RateLimitInput,
  rateLimitsToProto,
  type UsageLimitInput,
  usageLimitOut,
  usageLimitsToProto,
} from '../limits/limits.schema.js';
import type { AccessOverrides } from '../organisations/access-settings.js';
import type { LimitOwner } from '../usage/current-usage.js';
import {
  effectiveSettings,
  type StoredSettings,
  settingsOverrides,
  settingsToProto,
} from './workspaces.settings.js';

export type WorkspaceRow = Selectable<WorkspacesTable>;

export const workspaceSchema = z.object({
  id: z.uuid(),
  object: z.literal('workspace'),
  organisation_id: z.uuid(),
  name: z.string(),
  slug: z.string(),
  description: z.string(),
  status: z.enum(['active', 'archived']),
  default_metadata: z.record(z.string(), z.string()),
  settings: z.record(z.string(), z.union([z.boolean(), z.number(), z.null()])),
  settings_overrides: z.record(z.string(), z.union([z.boolean(), z.number()])),
  usage_limits: z.array(usageLimitOut),
  rate_limits: z.array(z.record(z.string(), z.unknown())),
  created_at: z.string(),
  last_updated_at: z.string(),
});

/** `organisationAccess`: the organisation's own access settings, which the workspace may override. */
export function workspaceToApi(row: WorkspaceRow, organisationAccess: AccessOverrides) {
  const stored = row.settings as StoredSettings;
  return {
    id: row.id,
    object: 'workspace' as const,
    organisation_id: row.organisation_id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    status: row.status,
    default_metadata: row.default_metadata,
    settings: effectiveSettings(stored, organisationAccess),
    settings_overrides: settingsOverrides(stored),
    usage_limits: usageLimitsToApi(row.usage_limits),
    rate_limits: row.rate_limits as Record<string, unknown>[],
    created_at: row.created_at.toISOString(),
    last_updated_at: row.updated_at.toISOString(),
  };
}

/** The workspace's usage limits for fillCurrentUsage (they count under `workspace`). */
export function workspaceUsage(workspace: ReturnType<typeof workspaceToApi>): LimitOwner {
  return { kind: 'workspace', id: workspace.id, limits: workspace.usage_limits };
}

/** The organisation's access settings, needed to show a workspace's effective values. */
export async function organisationAccess(
  db: Kysely<ControlDatabase>,
  organisationId: string,
): Promise<AccessOverrides> {
  const row = await db
    .selectFrom('organisations')
    .select('settings')
    .where('id', '=', organisationId)
    .executeTakeFirst();
  return (row?.settings.access ?? {}) as AccessOverrides;
}

/** A workspace's entity names itself as its workspace, as an organisation names itself. */
export function workspaceEntity(row: WorkspaceRow): Entity {
  return {
    kind: EntityKind.WORKSPACE,
    id: row.id,
    version: Number(row.version),
    tombstone: false,
    organisationId: row.organisation_id,
    workspaceId: row.id,
    updatedAtMs: row.updated_at.getTime(),
    body: {
      $case: 'workspace',
      value: {
        name: row.name,
        slug: row.slug,
        status: row.status === 'active' ? EntityStatus.ACTIVE : EntityStatus.ARCHIVED,
        defaultMetadata: row.default_metadata,
        settings: settingsToProto(row.settings as StoredSettings),
        rateLimits: rateLimitsToProto(row.rate_limits as RateLimitInput[]),
        usageLimits: usageLimitsToProto(row.usage_limits as UsageLimitInput[]),
        createdAtMs: row.created_at.getTime(),
      },
    },
  };
}
