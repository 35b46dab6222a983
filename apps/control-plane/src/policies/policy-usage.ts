// `current_usage` of each entity a usage limits policy is attached to: what the policy counted, in
// its current period, in the groups of that entity (its `group_by` value: the key's id, the
// workspace's id, the user's id or e-mail as `metadata._user`). null when the policy does not
// count per that kind of entity, or the ledger could not be read. docs/admin-api/policies.md.
import type { UsagePeriod } from '@aigw/proto';
import { z } from 'zod';
import type { RouteContext } from '../http/route.js';
import { periodOf, usageOf } from '../usage/current-usage.js';
import { readUsage, type UsageKey } from '../usage/usage-reader.js';
import type { PolicyRow } from './policies.db.js';
import { type AttachedEntity, attachedEntitySchema } from './policies.entities.js';

/** The group_by key under which each kind of entity has its own usage. */
export const ENTITY_GROUP_KEY = {
  'api-key': 'api_key',
  workspace: 'workspace_id',
  user: 'metadata._user',
} as const;

export const entityWithUsageSchema = z.intersection(
  attachedEntitySchema,
  z.object({
    /** USD (fractional) or tokens in the current period; null: not counted per entity, or unknown. */
    current_usage: z.number().nullable(),
  }),
);

/**
 * Where the gateways' counter of groups holding `key=value` starts: at the policy's latest reset of
 * that value when it fell inside `period` (a period without end holds every reset), else at the
 * period's start. The same rule as the gateway's `periodAfterReset` (docs/limits.md "Resets").
 */
export function periodStartAfterReset(
  policy: Pick<PolicyRow, 'usage_resets'>,
  key: string,
  value: string,
  period: UsagePeriod,
): number {
  let start = period.startMs;
  for (const reset of policy.usage_resets ?? []) {
    const at = Number(reset.reset_at_ms);
    if (reset.group_key !== key || reset.group_value !== value || at <= start) continue;
    if (period.endMs !== 0 && at >= period.endMs) continue;
    start = at;
  }
  return start;
}

/** The group values an entity's usage is counted under (a user: its id and its e-mail). */
export function entityGroupValues(entity: AttachedEntity): string[] {
  return entity.object === 'user' ? [entity.id, entity.email] : [entity.id];
}

type EntityContext = Pick<
  RouteContext<unknown, unknown, unknown>,
  'logsService' | 'principal' | 'log' | 'req'
>;

export async function withEntityUsage(
  ctx: EntityContext,
  policy: PolicyRow,
  entities: readonly AttachedEntity[],
  nowMs = Date.now(),
): Promise<(AttachedEntity & { current_usage: number | null })[]> {
  const period = periodOf(policy, nowMs);
  const groupKeys = policy.group_by.map((g) => g.key);
  const keys: UsageKey[] = [];
  const owned = entities.map((entity) => {
    const key = ENTITY_GROUP_KEY[entity.object];
    if (!groupKeys.includes(key)) return null;
    return entityGroupValues(entity).map((value) => {
      // After a reset of this value the gateways count in a period starting at the reset.
      const periodStartMs = periodStartAfterReset(policy, key, value, period);
      const part = `${encodeURIComponent(key)}=${encodeURIComponent(value)}`;
      // Grouped by this key alone, the entity's group is exact; with other keys, sum its groups.
      const usageKey: UsageKey =
        groupKeys.length === 1
          ? { kind: 'usage_limit_policy', id: policy.id, group: part, periodStartMs }
          : { kind: 'usage_limit_policy', id: policy.id, parts: [part], periodStartMs };
      return keys.push(usageKey) - 1;
    });
  });
  const amounts = await readUsage(ctx, keys);
  const type = policy.type === 'tokens' ? 'tokens' : 'cost';
  return entities.map((entity, i) => {
    const slots = owned[i];
    if (!slots || !amounts) return { ...entity, current_usage: null };
    // Summed in integers (micro-USD, tokens), converted once.
    const sum = { costMicros: 0, costUsd: 0, tokens: 0, requests: 0 };
    for (const slot of slots) {
      sum.costMicros += amounts[slot]?.costMicros ?? 0;
      sum.tokens += amounts[slot]?.tokens ?? 0;
    }
    sum.costUsd = sum.costMicros / 1_000_000;
    return { ...entity, current_usage: usageOf(type, sum) };
  });
}
