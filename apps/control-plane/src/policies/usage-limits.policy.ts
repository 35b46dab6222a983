// Usage limits policies: the API object, the gateway entity (credit_limit in micro-USD for cost),
// how an update merges into the stored limit, and the alert resets it causes (spec part 3).
import { UsageLimitType } from '@aigw/proto';
import type { Updateable } from 'kysely';
import type { z } from 'zod';
import { invalid } from '../api-errors.js';
import { periodicResetToProto } from '../limits/limits.schema.js';
import { conditionsToProto, groupByToProto } from './policies.conditions.js';
import type { PoliciesTable, PolicyRow } from './policies.db.js';
import { commonToApi, policyEntity, policyStatus } from './policies.entity.js';
import { alertResets, resetAlerts } from './policy-alerts.js';
import type { PolicyFamily } from './policy-family.routes.js';
import { entityWithUsageSchema, withEntityUsage } from './policy-usage.js';
import {
  createUsageLimitsPolicyBody,
  listUsageLimitsPoliciesQuery,
  type UpdateUsageLimitsPolicyBody,
  type UsageLimitState,
  updateUsageLimitsPolicyBody,
  usageLimitIssue,
  usageLimitsPolicySchema,
} from './usage-limits.schema.js';

const MICROS = 1_000_000;

export function usageLimitsPolicyToApi(row: PolicyRow) {
  return {
    id: row.id,
    object: 'policy_usage_limits' as const,
    name: row.name,
    type: row.type,
    credit_limit: row.credit_limit ?? 0,
    alert_threshold: row.alert_threshold,
    periodic_reset: row.periodic_reset,
    periodic_reset_days: row.periodic_reset_days,
    next_usage_reset_at: row.next_usage_reset_at?.toISOString() ?? null,
    ...commonToApi(row),
  };
}

export function usageLimitsPolicyEntity(row: PolicyRow) {
  const scale = row.type === 'cost' ? MICROS : 1;
  return policyEntity(row, {
    $case: 'usageLimitPolicy',
    value: {
      name: row.name,
      type: row.type === 'cost' ? UsageLimitType.COST : UsageLimitType.TOKENS,
      conditions: conditionsToProto(row.conditions),
      groupBy: groupByToProto(row.group_by),
      creditLimit: Math.round((row.credit_limit ?? 0) * scale),
      ...(row.alert_threshold !== null ? { alertThreshold: Math.round(row.alert_threshold * scale) } : {}),
      periodicReset: periodicResetToProto(row.periodic_reset),
      periodicResetDays: row.periodic_reset_days ?? 0,
      nextUsageResetAtMs: row.next_usage_reset_at?.getTime() ?? 0,
      status: policyStatus(row),
      createdAtMs: row.created_at.getTime(),
      lastUpdatedAtMs: row.updated_at.getTime(),
      resets: (row.usage_resets ?? []).map((r) => ({
        groupKey: r.group_key,
        groupValue: r.group_value,
        resetAtMs: Number(r.reset_at_ms),
      })),
    },
  });
}

function given<T>(value: T | undefined, stored: T): T {
  return value === undefined ? stored : value;
}

/**
 * The stored limit with the update applied. Setting one reset style clears the other; removing
 * both clears next_usage_reset_at. The result must meet the create rules (AB01 naming the field).
 */
export function mergeUsageLimit(current: PolicyRow, body: UpdateUsageLimitsPolicyBody): UsageLimitState {
  const periodicReset = given(body.periodic_reset, body.periodic_reset_days ? null : current.periodic_reset);
  const periodicResetDays = given(
    body.periodic_reset_days,
    body.periodic_reset ? null : current.periodic_reset_days,
  );
  const nextReset =
    body.next_usage_reset_at === undefined
      ? periodicReset === null && periodicResetDays === null
        ? null
        : current.next_usage_reset_at
      : body.next_usage_reset_at === null
        ? null
        : new Date(body.next_usage_reset_at);
  const merged: UsageLimitState = {
    type: current.type,
    credit_limit: given(body.credit_limit, current.credit_limit ?? 0),
    alert_threshold: given(body.alert_threshold, current.alert_threshold),
    periodic_reset: periodicReset,
    periodic_reset_days: periodicResetDays,
    next_usage_reset_at: nextReset,
  };
  const issue = usageLimitIssue(merged, body.next_usage_reset_at ? new Date() : undefined);
  if (issue) {
    // A lowered credit limit that falls below the stored threshold is the credit limit's fault.
    const blameCredit = issue.field === 'alert_threshold' && body.alert_threshold === undefined;
    const field = blameCredit ? 'credit_limit' : issue.field;
    const message = blameCredit ? 'must be above alert_threshold' : issue.message;
    throw invalid(`body.${field}: ${message}`, `body.${field}`);
  }
  return merged;
}

function updateColumns(current: PolicyRow, body: UpdateUsageLimitsPolicyBody): Updateable<PoliciesTable> {
  const { name, ...limit } = body;
  const columns: Updateable<PoliciesTable> = name === undefined ? {} : { name };
  if (Object.keys(limit).length === 0) return columns;
  const merged = mergeUsageLimit(current, body);
  return {
    ...columns,
    credit_limit: merged.credit_limit,
    alert_threshold: merged.alert_threshold,
    periodic_reset: merged.periodic_reset,
    periodic_reset_days: merged.periodic_reset_days,
    next_usage_reset_at: merged.next_usage_reset_at,
  };
}

export const usageLimitsPolicies: PolicyFamily<
  z.output<typeof createUsageLimitsPolicyBody>,
  UpdateUsageLimitsPolicyBody,
  z.output<typeof listUsageLimitsPoliciesQuery>
> = {
  kind: 'usage_limits',
  path: '/policies/usage-limits',
  idParam: 'usageLimitsPolicyId',
  tag: 'Usage limits policies',
  noun: 'usage limits policy',
  plural: 'usage limits policies',
  resourceType: 'usage_limits_policy',
  scopes: 'usage_limits_policies',
  object: 'policy_usage_limits',
  createBody: createUsageLimitsPolicyBody,
  updateBody: updateUsageLimitsPolicyBody,
  listQuery: listUsageLimitsPoliciesQuery,
  response: usageLimitsPolicySchema,
  toApi: usageLimitsPolicyToApi,
  entity: usageLimitsPolicyEntity,
  insertColumns: (body) => ({
    credit_limit: body.credit_limit,
    alert_threshold: body.alert_threshold ?? null,
    periodic_reset: body.periodic_reset ?? null,
    periodic_reset_days: body.periodic_reset_days ?? null,
    next_usage_reset_at: body.next_usage_reset_at ? new Date(body.next_usage_reset_at) : null,
  }),
  updateColumns,
  async afterUpdate(db, before, after) {
    await resetAlerts(db, { kind: 'usage_limit_policy', id: after.id }, alertResets(before, after));
  },
  attached: { schema: entityWithUsageSchema, show: withEntityUsage },
};
