// What both policy kinds share in their API form and their gateway form (the Entity envelope).
import { type Entity, EntityKind, EntityStatus } from '@aigw/proto';
import { z } from 'zod';
import type { PolicyRow } from './policies.db.js';

/** Fields of spec 2.1 that both kinds carry, in the API form. */
export function commonToApi(row: PolicyRow) {
  return {
    conditions: row.conditions.map((c) => ({ key: c.key, value: c.value })),
    group_by: row.group_by.map((g) => ({ key: g.key })),
    workspace_id: row.workspace_id,
    organisation_id: row.organisation_id,
    created_at: row.created_at.toISOString(),
    last_updated_at: row.updated_at.toISOString(),
    status: row.status,
  };
}

export const commonSchema = {
  conditions: z.array(z.object({ key: z.string(), value: z.string() })),
  group_by: z.array(z.object({ key: z.string() })),
  workspace_id: z.uuid().nullable(),
  organisation_id: z.uuid(),
  created_at: z.string(),
  last_updated_at: z.string(),
  status: z.enum(['active', 'archived']),
};

export function policyStatus(row: PolicyRow): EntityStatus {
  return row.status === 'active' ? EntityStatus.ACTIVE : EntityStatus.ARCHIVED;
}

type PolicyBody = Extract<
  NonNullable<Entity['body']>,
  { $case: 'rateLimitPolicy' } | { $case: 'usageLimitPolicy' }
>;

export function policyEntity(row: PolicyRow, body: PolicyBody): Entity {
  return {
    kind: body.$case === 'rateLimitPolicy' ? EntityKind.RATE_LIMIT_POLICY : EntityKind.USAGE_LIMIT_POLICY,
    id: row.id,
    version: Number(row.version),
    tombstone: false,
    organisationId: row.organisation_id,
    workspaceId: row.workspace_id ?? '',
    updatedAtMs: row.updated_at.getTime(),
    body,
  };
}
