// Rate limits policies (spec 2.1, 4.1): request schemas, the API object and the gateway entity.
import { RateLimitType, RateLimitUnit } from '@aigw/proto';
import { z } from 'zod';
import { idOrSlug, pageQuery } from '../http/list.js';
import { conditionsSchema, conditionsToProto, groupBySchema, groupByToProto } from './policies.conditions.js';
import type { PolicyRow } from './policies.db.js';
import { commonSchema, commonToApi, policyEntity, policyStatus } from './policies.entity.js';
import type { PolicyFamily } from './policy-family.routes.js';

const TYPES = ['requests', 'tokens'] as const;
const UNITS = ['rpm', 'rph', 'rpd'] as const;

const fields = {
  name: z.string().trim().min(1).max(255),
  unit: z.enum(UNITS),
  value: z.number().int().positive().max(1e12),
};

export const createRateLimitsPolicyBody = z
  .object({
    name: fields.name,
    conditions: conditionsSchema,
    group_by: groupBySchema,
    type: z.enum(TYPES),
    unit: fields.unit,
    value: fields.value,
    workspace_id: idOrSlug.optional(),
    organisation_id: z.uuid().optional(),
  })
  .strict();

/** Spec 4.1: name, unit and value, all optional. */
export const updateRateLimitsPolicyBody = z
  .object({ name: fields.name.optional(), unit: fields.unit.optional(), value: fields.value.optional() })
  .strict();

export const listRateLimitsPoliciesQuery = z.object({
  ...pageQuery,
  workspace_id: idOrSlug.optional(),
  status: z.enum(['active', 'archived']).default('active'),
  type: z.enum(TYPES).optional(),
  unit: z.enum(UNITS).optional(),
});

export const rateLimitsPolicySchema = z.object({
  id: z.uuid(),
  object: z.literal('policy_rate_limits'),
  name: z.string(),
  type: z.enum(TYPES),
  unit: z.enum(UNITS),
  value: z.number(),
  ...commonSchema,
});

export function rateLimitsPolicyToApi(row: PolicyRow) {
  return {
    id: row.id,
    object: 'policy_rate_limits' as const,
    name: row.name,
    type: row.type,
    unit: row.unit,
    value: Number(row.value),
    ...commonToApi(row),
  };
}

const TYPE_PROTO = { requests: RateLimitType.REQUESTS, tokens: RateLimitType.TOKENS } as const;
const UNIT_PROTO = { rpm: RateLimitUnit.RPM, rph: RateLimitUnit.RPH, rpd: RateLimitUnit.RPD } as const;

export function rateLimitsPolicyEntity(row: PolicyRow) {
  return policyEntity(row, {
    $case: 'rateLimitPolicy',
    value: {
      name: row.name,
      type: TYPE_PROTO[row.type as keyof typeof TYPE_PROTO],
      unit: UNIT_PROTO[row.unit as keyof typeof UNIT_PROTO],
      value: Number(row.value),
      conditions: conditionsToProto(row.conditions),
      groupBy: groupByToProto(row.group_by),
      status: policyStatus(row),
      createdAtMs: row.created_at.getTime(),
      lastUpdatedAtMs: row.updated_at.getTime(),
    },
  });
}

export const rateLimitsPolicies: PolicyFamily<
  z.output<typeof createRateLimitsPolicyBody>,
  z.output<typeof updateRateLimitsPolicyBody>,
  z.output<typeof listRateLimitsPoliciesQuery>
> = {
  kind: 'rate_limits',
  path: '/policies/rate-limits',
  idParam: 'rateLimitsPolicyId',
  tag: 'Rate limits policies',
  noun: 'rate limits policy',
  plural: 'rate limits policies',
  resourceType: 'rate_limits_policy',
  scopes: 'rate_limits_policies',
  object: 'policy_rate_limits',
  createBody: createRateLimitsPolicyBody,
  updateBody: updateRateLimitsPolicyBody,
  listQuery: listRateLimitsPoliciesQuery,
  response: rateLimitsPolicySchema,
  toApi: rateLimitsPolicyToApi,
  entity: rateLimitsPolicyEntity,
  insertColumns: (body) => ({ unit: body.unit, value: body.value }),
  updateColumns: (_current, body) => ({
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.unit !== undefined ? { unit: body.unit } : {}),
    ...(body.value !== undefined ? { value: body.value } : {}),
  }),
};
