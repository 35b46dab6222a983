// Config rows as the API returns them and as gateways receive them (proto Entity, CONFIG).
import { type Entity, EntityKind, EntityStatus } from '@aigw/proto';
import type { Kysely } from 'kysely';
import { type ConfigRow, type ConfigVersionRow, configDb } from '../db/configs.db.js';
import type { ControlDatabase } from '../db/schema.js';
import { configForApi } from './configs.headers.js';

export type ConfigSummaryRow = Omit<
  ConfigRow,
  'body' | 'guardrail_ids' | 'encrypted_headers' | 'masked_headers'
>;

export function configSummaryToApi(row: ConfigSummaryRow) {
  return {
    id: row.id,
    object: 'config' as const,
    organisation_id: row.organisation_id,
    workspace_id: row.workspace_id,
    name: row.name,
    slug: row.slug,
    status: row.status,
    version: row.config_version,
    created_by_user_id: row.created_by_user_id,
    created_by_api_key_id: row.created_by_api_key_id,
    created_at: row.created_at.toISOString(),
    last_updated_at: row.updated_at.toISOString(),
  };
}

/** The config object with webhook header values masked (configs.headers.ts). */
export function configToApi(row: ConfigRow) {
  return { ...configSummaryToApi(row), config: configForApi(row.body, row.masked_headers) };
}

export type ConfigVersionSummaryRow = Omit<ConfigVersionRow, 'body' | 'encrypted_headers' | 'masked_headers'>;

export function configVersionSummaryToApi(row: ConfigVersionSummaryRow) {
  return {
    object: 'config_version' as const,
    config_id: row.config_id,
    version: row.version,
    created_by_user_id: row.created_by_user_id,
    created_by_api_key_id: row.created_by_api_key_id,
    created_at: row.created_at.toISOString(),
  };
}

export function configVersionToApi(row: ConfigVersionRow) {
  return { ...configVersionSummaryToApi(row), config: configForApi(row.body, row.masked_headers) };
}

/**
 * The latest version. `body_json` is the text the control plane validated and stored (webhook header
 * values taken out); the gateway puts the values back from `encrypted_headers` and parses it with the
 * same package (@aigw/config-schema), so it gets the same normalised tree.
 */
export function configEntity(row: ConfigRow): Entity {
  return {
    kind: EntityKind.CONFIG,
    id: row.id,
    version: Number(row.version),
    tombstone: false,
    organisationId: row.organisation_id,
    workspaceId: row.workspace_id,
    updatedAtMs: row.updated_at.getTime(),
    body: {
      $case: 'config',
      value: {
        name: row.name,
        slug: row.slug,
        version: row.config_version,
        bodyJson: row.body,
        encryptedHeaders: row.encrypted_headers ?? Buffer.alloc(0),
        status: row.status === 'active' ? EntityStatus.ACTIVE : EntityStatus.ARCHIVED,
      },
    },
  };
}

/** Snapshot reader: every config at its latest version, archived ones included. */
export async function readConfigEntities(trx: Kysely<ControlDatabase>): Promise<Entity[]> {
  return (await configDb(trx).selectFrom('configs').selectAll().execute()).map(configEntity);
}
