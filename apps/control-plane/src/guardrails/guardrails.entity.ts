// Guardrail rows as the API returns them (webhook header values masked) and as gateways receive them
// (proto Entity, GUARDRAIL; header values only inside the sealed `encrypted_headers`).
import { type Entity, EntityKind, EntityStatus } from '@aigw/proto';
import type { Kysely } from 'kysely';
import type { GuardrailRow, GuardrailTables } from '../db/guardrails.db.js';
import type { ControlDatabase } from '../db/schema.js';
import type { GuardrailDefinition } from './guardrails.checks.js';
import { checksForApi } from './guardrails.headers.js';

export function definitionOf(row: GuardrailRow): GuardrailDefinition {
  return row.definition as unknown as GuardrailDefinition;
}

export function guardrailToApi(row: GuardrailRow) {
  const definition = definitionOf(row);
  return {
    id: row.id,
    object: 'guardrail' as const,
    organisation_id: row.organisation_id,
    workspace_id: row.workspace_id,
    name: row.name,
    slug: row.slug,
    status: row.status,
    checks: checksForApi(definition.checks, row.masked_headers),
    actions: definition.actions,
    async: definition.async,
    created_by_user_id: row.created_by_user_id,
    created_by_api_key_id: row.created_by_api_key_id,
    created_at: row.created_at.toISOString(),
    last_updated_at: row.updated_at.toISOString(),
  };
}

/** `body_json` is the normalised definition `{checks, actions, async}` (docs/admin-api/guardrails.md). */
export function guardrailEntity(row: GuardrailRow): Entity {
  const definition = definitionOf(row);
  return {
    kind: EntityKind.GUARDRAIL,
    id: row.id,
    version: Number(row.version),
    tombstone: false,
    organisationId: row.organisation_id,
    workspaceId: row.workspace_id ?? '',
    updatedAtMs: row.updated_at.getTime(),
    body: {
      $case: 'guardrail',
      value: {
        name: row.name,
        slug: row.slug,
        status: row.status === 'active' ? EntityStatus.ACTIVE : EntityStatus.ARCHIVED,
        bodyJson: JSON.stringify({
          checks: definition.checks,
          actions: definition.actions,
          async: definition.async,
        }),
        encryptedHeaders: row.encrypted_headers ?? Buffer.alloc(0),
      },
    },
  };
}

/** Snapshot reader: every guardrail, archived ones included (gateways learn of it by the status). */
export async function readGuardrailEntities(trx: Kysely<ControlDatabase>): Promise<Entity[]> {
  const rows = await trx.withTables<GuardrailTables>().selectFrom('guardrails').selectAll().execute();
  return rows.map(guardrailEntity);
}
