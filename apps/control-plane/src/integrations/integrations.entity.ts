// Integration rows as the API returns them (credentials masked) and as gateways receive them (proto
// Entity: credentials only as the sealed envelope).
import { type Entity, EntityKind, EntityStatus } from '@aigw/proto';
import type { Kysely, Selectable } from 'kysely';
import type { ControlDatabase, IntegrationsTable, IntegrationWorkspaceEntry } from '../db/schema.js';
import {
  type RateLimitInput,
  rateLimitsToProto,
  type UsageLimitInput,
  usageLimitsToProto,
} from '../limits/limits.schema.js';
import { integrationWorkspaceGroup, type LimitOwner } from '../usage/current-usage.js';
import { optionsToProto } from './options.js';
import type { AiProvider } from './provider-types.js';
import { secretStateToApi, withheldMessage } from './secret-state.js';

export type IntegrationRow = Selectable<IntegrationsTable>;

/** Limits as responses show them: `current_usage` 0 until a route fills it (fillCurrentUsage). */
export function usageLimitsToApi(limits: unknown[]) {
  return (limits as UsageLimitInput[]).map((limit) => ({ ...limit, current_usage: 0 }));
}

type IntegrationApi = ReturnType<typeof integrationToApi>;
type IntegrationWorkspaceApi = ReturnType<typeof integrationWorkspaceToApi>;

/** An integration's per-workspace limits count under the integration, group `workspace_id=<id>`. */
export function integrationWorkspaceUsage(integrationId: string, entry: IntegrationWorkspaceApi): LimitOwner {
  return {
    kind: 'integration',
    id: integrationId,
    group: integrationWorkspaceGroup(entry.id),
    limits: entry.usage_limits,
  };
}

/** The integration's own limits and those of each of its workspaces. */
export function integrationUsage(integration: IntegrationApi): LimitOwner[] {
  return [
    { kind: 'integration', id: integration.id, limits: integration.usage_limits },
    ...integration.workspaces.map((entry) => integrationWorkspaceUsage(integration.id, entry)),
  ];
}

export function integrationWorkspaceToApi(entry: IntegrationWorkspaceEntry) {
  return {
    id: entry.workspace_id,
    object: 'integration-workspace' as const,
    enabled: entry.enabled,
    rate_limits: entry.rate_limits as RateLimitInput[],
    usage_limits: usageLimitsToApi(entry.usage_limits),
  };
}

export function integrationToApi(row: IntegrationRow) {
  return {
    id: row.id,
    object: 'integration' as const,
    organisation_id: row.organisation_id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    ai_provider: row.ai_provider as AiProvider,
    status: row.status,
    credentials: row.masked_credentials,
    options: row.options,
    allow_all_workspaces: row.allow_all_workspaces,
    workspaces: row.workspaces.map(integrationWorkspaceToApi),
    allowed_models: row.allowed_models,
    rate_limits: row.rate_limits as RateLimitInput[],
    usage_limits: usageLimitsToApi(row.usage_limits),
    tags: row.tags,
    ...secretStateToApi(row),
    created_at: row.created_at.toISOString(),
    last_updated_at: row.updated_at.toISOString(),
  };
}

export function integrationEntity(row: IntegrationRow): Entity {
  return {
    kind: EntityKind.INTEGRATION,
    id: row.id,
    version: Number(row.version),
    tombstone: false,
    organisationId: row.organisation_id,
    workspaceId: '',
    updatedAtMs: row.updated_at.getTime(),
    body: {
      $case: 'integration',
      value: {
        name: row.name,
        slug: row.slug,
        aiProvider: row.ai_provider,
        status: row.status === 'active' ? EntityStatus.ACTIVE : EntityStatus.DISABLED,
        // Withheld: their secret references failed past the refresh window (secret-references/).
        encryptedCredentials: row.secrets_withheld
          ? Buffer.alloc(0)
          : (row.encrypted_credentials ?? Buffer.alloc(0)),
        credentialError: row.secrets_withheld ? withheldMessage(row.secrets_error) : '',
        options: optionsToProto(row.options),
        allowAllWorkspaces: row.allow_all_workspaces,
        workspaces: row.workspaces.map((entry) => ({
          workspaceId: entry.workspace_id,
          enabled: entry.enabled,
          rateLimits: rateLimitsToProto(entry.rate_limits as RateLimitInput[]),
          usageLimits: usageLimitsToProto(entry.usage_limits as UsageLimitInput[]),
        })),
        allowedModels: row.allowed_models,
        rateLimits: rateLimitsToProto(row.rate_limits as RateLimitInput[]),
        usageLimits: usageLimitsToProto(row.usage_limits as UsageLimitInput[]),
        tags: row.tags,
      },
    },
  };
}

/** Snapshot reader: every integration of every organisation. */
export async function readIntegrationEntities(trx: Kysely<ControlDatabase>): Promise<Entity[]> {
  return (await trx.selectFrom('integrations').selectAll().execute()).map(integrationEntity);
}

/** May this workspace use the integration? An explicit entry wins over `allow_all_workspaces`. */
export function workspaceMayUse(row: IntegrationRow, workspaceId: string): boolean {
  const entry = row.workspaces.find((e) => e.workspace_id === workspaceId);
  return entry ? entry.enabled : row.allow_all_workspaces;
}
