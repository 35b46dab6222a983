// Per-entity usage reset of a usage limits policy: the usage the policy counted for one attached
// API key, workspace or user starts again from zero. The reset is stored (policy_usage_resets, and
// the policy's usage_resets that travel with it), the policy's version is bumped and its new state
// goes through the outbox and NATS to every gateway like any other change, whose counters of those
// groups then start at the reset time (docs/limits.md "Resets"). Audited by the route.
import { sql } from 'kysely';
import { z } from 'zod';
import { apiError, conflict } from '../api-errors.js';
import { defineRoute, emptyObject, type RouteDefinition } from '../http/route.js';
import { policyDb, type ResetEntityKind } from './policies.db.js';
import { findAttachedEntity } from './policies.entities.js';
import { findPolicy } from './policies.repository.js';
import { resetAlerts } from './policy-alerts.js';
import { entityGroupValues, ENTITY_GROUP_KEY as GROUP_KEY } from './policy-usage.js';
import { usageLimitsPolicyEntity } from './usage-limits.policy.js';

const ENTITY_KIND: Record<keyof typeof GROUP_KEY, ResetEntityKind> = {
  'api-key': 'api_key',
  workspace: 'workspace',
  user: 'user',
};

export const usageResetSchema = z.object({
  object: z.literal('policy_usage_reset'),
  policy_id: z.uuid(),
  entity: z.object({ object: z.enum(['api-key', 'workspace', 'user']), id: z.uuid() }),
  group_by_key: z.string(),
  group_values: z.array(z.string()),
  reset_at: z.string(),
});

export const usageResetRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'post',
    path: '/policies/usage-limits/:usageLimitsPolicyId/entities/:entityId/reset',
    tag: 'Usage limits policies',
    summary: 'Reset the usage of one entity',
    scope: 'usage_limits_policies.update',
    level: 'workspace',
    minRole: 'manager',
    params: z.object({ usageLimitsPolicyId: z.uuid(), entityId: z.uuid() }),
    body: emptyObject,
    response: usageResetSchema,
    audit: { action: 'usage_limits_policies.reset_usage', resourceType: 'usage_limits_policy' },
    async handler({ db, principal, params, mutate }) {
      const policy = await findPolicy(db, principal, 'usage_limits', params.usageLimitsPolicyId);
      if (policy.status === 'archived')
        throw conflict('an archived policy is not enforced: no usage to reset');
      const entity = await findAttachedEntity(db, policy, params.entityId);
      if (!entity) throw apiError('AB08', 'Entity not found: the policy is not attached to it');
      const key = GROUP_KEY[entity.object];
      if (!policy.group_by.some((g) => g.key === key))
        throw conflict(`this policy does not group usage by ${key}: it has no usage of one ${entity.object}`);
      const values = entityGroupValues(entity);
      const resetAt = new Date();
      return mutate({ resourceId: policy.id, workspaceId: policy.workspace_id }, async (tx) => {
        // Resets of one policy run one at a time, so each rewrites usage_resets from every reset.
        await policyDb(tx.db)
          .selectFrom('policies')
          .select('id')
          .where('id', '=', policy.id)
          .forUpdate()
          .executeTakeFirstOrThrow();
        await policyDb(tx.db)
          .insertInto('policy_usage_resets')
          .values(
            values.map((value) => ({
              policy_id: policy.id,
              group_key: key,
              group_value: value,
              entity_kind: ENTITY_KIND[entity.object],
              entity_id: entity.id,
              reset_at: resetAt,
            })),
          )
          .onConflict((oc) =>
            oc.columns(['policy_id', 'group_key', 'group_value']).doUpdateSet({ reset_at: resetAt }),
          )
          .execute();
        const resets = await policyDb(tx.db)
          .selectFrom('policy_usage_resets')
          .select(['group_key', 'group_value', 'reset_at'])
          .where('policy_id', '=', policy.id)
          .orderBy('group_key')
          .orderBy('group_value')
          .execute();
        const row = await policyDb(tx.db)
          .updateTable('policies')
          .set({
            usage_resets: JSON.stringify(
              resets.map((r) => ({
                group_key: r.group_key,
                group_value: r.group_value,
                reset_at_ms: r.reset_at.getTime(),
              })),
            ),
            version: sql<number>`version + 1`,
          })
          .where('id', '=', policy.id)
          .returningAll()
          .executeTakeFirstOrThrow();
        await tx.change(usageLimitsPolicyEntity(row));
        await resetAlerts(
          tx.db,
          { kind: 'usage_limit_policy', id: policy.id },
          { threshold: true, exhausted: true },
          { key, values },
        );
        return {
          object: 'policy_usage_reset' as const,
          policy_id: policy.id,
          entity: { object: entity.object, id: entity.id },
          group_by_key: key,
          group_values: values,
          reset_at: resetAt.toISOString(),
        };
      });
    },
  }),
];
