// The condition and group_by vocabulary of policies (ARCHITECTURE part 4 "Rate limits"): which keys
// exist, how values look, and their proto form for gateways.
import type { PolicyCondition as ProtoCondition, PolicyGroupBy as ProtoGroupBy } from '@aigw/proto';
import { z } from 'zod';
import { isUuid } from '../auth/visibility.js';
import type { PolicyCondition, PolicyGroupBy } from './policies.db.js';

/** Keys decided by the request or its credential; `metadata.<key>` adds request metadata. */
export const POLICY_KEYS = [
  'api_key',
  'workspace_id',
  'organisation_id',
  'provider',
  'model',
  'config',
  'virtual_key',
] as const;

const METADATA_KEY = /^metadata\.[\w.-]{1,64}$/;
const KNOWN: ReadonlySet<string> = new Set(POLICY_KEYS);

/** Matches every value of its key (the request must still have one). */
export const WILDCARD = '*';

export function isPolicyKey(key: string): boolean {
  return KNOWN.has(key) || METADATA_KEY.test(key);
}

const keySchema = z
  .string()
  .refine(
    isPolicyKey,
    `must be one of ${POLICY_KEYS.join(', ')} or metadata.<key> (<key>: 1 to 64 of A-Z a-z 0-9 _ . -)`,
  );

const conditionSchema = z
  .object({
    key: keySchema,
    value: z
      .string()
      .min(1)
      .max(255)
      .refine((v) => !v.includes('\u0000'), 'must not contain NUL characters'),
  })
  .strict();

function noDuplicateKeys(items: readonly { key: string }[], ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  items.forEach((item, index) => {
    if (seen.has(item.key)) ctx.addIssue({ code: 'custom', path: [index, 'key'], message: 'duplicate key' });
    seen.add(item.key);
  });
}

export const conditionsSchema = z
  .array(conditionSchema)
  .min(1)
  .max(20)
  .superRefine((conditions, ctx) => {
    noDuplicateKeys(conditions, ctx);
    conditions.forEach((condition, index) => {
      const idValued = condition.key === 'api_key' || condition.key === 'organisation_id';
      if (idValued && condition.value !== WILDCARD && !isUuid(condition.value)) {
        ctx.addIssue({ code: 'custom', path: [index, 'value'], message: 'must be a uuid or *' });
      }
    });
  });

export const groupBySchema = z
  .array(z.object({ key: keySchema }).strict())
  .min(1)
  .max(10)
  .superRefine(noDuplicateKeys);

export function conditionsToProto(conditions: readonly PolicyCondition[]): ProtoCondition[] {
  return conditions.map((c) => ({ key: c.key, value: c.value }));
}

export function groupByToProto(groupBy: readonly PolicyGroupBy[]): ProtoGroupBy[] {
  return groupBy.map((g) => ({ key: g.key }));
}
