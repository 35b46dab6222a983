// Request schemas of usage limits policies, and the rules a usage limit must meet (checked on the
// create body and on the stored-plus-changed result of an update).
import { z } from 'zod';
import { idOrSlug, pageQuery } from '../http/list.js';
import { conditionsSchema, groupBySchema } from './policies.conditions.js';
import { commonSchema } from './policies.entity.js';

const TYPES = ['cost', 'tokens'] as const;

const fields = {
  name: z.string().trim().min(1).max(255),
  /** USD for `cost` (fractional allowed, micro-USD precision), tokens for `tokens`. */
  credit_limit: z.number().positive().max(1e12),
  alert_threshold: z.number().positive().max(1e12).nullable(),
  periodic_reset: z.enum(['weekly', 'monthly']).nullable(),
  periodic_reset_days: z.number().int().min(1).max(365).nullable(),
  next_usage_reset_at: z.iso.datetime({ offset: true }).nullable(),
};

export interface UsageLimitState {
  readonly type: string;
  readonly credit_limit: number;
  readonly alert_threshold: number | null;
  readonly periodic_reset: 'weekly' | 'monthly' | null;
  readonly periodic_reset_days: number | null;
  readonly next_usage_reset_at: Date | null;
}

export interface LimitIssue {
  readonly field: keyof UsageLimitState;
  readonly message: string;
}

/** The first rule the limit breaks; `now` given: next_usage_reset_at must also be after it. */
export function usageLimitIssue(limit: UsageLimitState, now?: Date): LimitIssue | undefined {
  if (limit.type === 'tokens') {
    for (const field of ['credit_limit', 'alert_threshold'] as const) {
      const value = limit[field];
      if (value !== null && !Number.isInteger(value))
        return { field, message: 'must be a whole number of tokens' };
    }
  }
  if (limit.alert_threshold !== null && limit.alert_threshold >= limit.credit_limit)
    return { field: 'alert_threshold', message: 'must be below credit_limit' };
  if (limit.periodic_reset !== null && limit.periodic_reset_days !== null)
    return {
      field: 'periodic_reset_days',
      message: 'periodic_reset and periodic_reset_days are mutually exclusive',
    };
  if (limit.next_usage_reset_at !== null) {
    if (limit.periodic_reset === null && limit.periodic_reset_days === null)
      return { field: 'next_usage_reset_at', message: 'needs periodic_reset or periodic_reset_days' };
    if (now && limit.next_usage_reset_at.getTime() <= now.getTime())
      return { field: 'next_usage_reset_at', message: 'must be in the future' };
  }
  return undefined;
}

export const createUsageLimitsPolicyBody = z
  .object({
    name: fields.name,
    conditions: conditionsSchema,
    group_by: groupBySchema,
    type: z.enum(TYPES),
    credit_limit: fields.credit_limit,
    alert_threshold: fields.alert_threshold.optional(),
    periodic_reset: fields.periodic_reset.optional(),
    periodic_reset_days: fields.periodic_reset_days.optional(),
    next_usage_reset_at: fields.next_usage_reset_at.optional(),
    workspace_id: idOrSlug.optional(),
    organisation_id: z.uuid().optional(),
  })
  .strict()
  .superRefine((body, ctx) => {
    const issue = usageLimitIssue(
      {
        type: body.type,
        credit_limit: body.credit_limit,
        alert_threshold: body.alert_threshold ?? null,
        periodic_reset: body.periodic_reset ?? null,
        periodic_reset_days: body.periodic_reset_days ?? null,
        next_usage_reset_at: body.next_usage_reset_at ? new Date(body.next_usage_reset_at) : null,
      },
      new Date(),
    );
    if (issue) ctx.addIssue({ code: 'custom', path: [issue.field], message: issue.message });
  });

/** Every field optional; null clears the optional settings. `type` and the conditions are fixed. */
export const updateUsageLimitsPolicyBody = z
  .object({
    name: fields.name.optional(),
    credit_limit: fields.credit_limit.optional(),
    alert_threshold: fields.alert_threshold.optional(),
    periodic_reset: fields.periodic_reset.optional(),
    periodic_reset_days: fields.periodic_reset_days.optional(),
    next_usage_reset_at: fields.next_usage_reset_at.optional(),
  })
  .strict();

export type UpdateUsageLimitsPolicyBody = z.output<typeof updateUsageLimitsPolicyBody>;

export const listUsageLimitsPoliciesQuery = z.object({
  ...pageQuery,
  workspace_id: idOrSlug.optional(),
  status: z.enum(['active', 'archived']).default('active'),
  type: z.enum(TYPES).optional(),
});

export const usageLimitsPolicySchema = z.object({
  id: z.uuid(),
  object: z.literal('policy_usage_limits'),
  name: z.string(),
  type: z.enum(TYPES),
  credit_limit: z.number(),
  alert_threshold: z.number().nullable(),
  periodic_reset: z.enum(['weekly', 'monthly']).nullable(),
  periodic_reset_days: z.number().int().nullable(),
  next_usage_reset_at: z.string().nullable(),
  ...commonSchema,
});
