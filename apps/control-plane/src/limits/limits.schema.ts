// Strict schemas for the rate and usage limits attached to keys, workspaces, providers and
// integrations (spec 2.5: validated strictly), and their proto form for gateways.
import {
  PeriodicReset,
  type RateLimit,
  RateLimitType,
  RateLimitUnit,
  type UsageLimit,
  UsageLimitType,
} from '@aigw/proto';
import { z } from 'zod';

const MICROS = 1_000_000;

export const rateLimitSchema = z
  .object({
    type: z.enum(['requests', 'tokens']),
    unit: z.enum(['rpm', 'rph', 'rpd']),
    value: z.number().int().positive().max(1e12),
  })
  .strict();

export const rateLimitsSchema = z
  .array(rateLimitSchema)
  .max(6)
  .refine((limits) => new Set(limits.map((l) => `${l.type}:${l.unit}`)).size === limits.length, {
    message: 'at most one rate limit per type and unit',
  });

export const usageLimitSchema = z
  .object({
    type: z.enum(['cost', 'tokens']).default('cost'),
    /** USD for `cost` (fractional allowed), tokens for `tokens`. */
    credit_limit: z.number().positive().max(1e12),
    alert_threshold: z.number().positive().max(1e12).nullable().optional(),
    periodic_reset: z.enum(['weekly', 'monthly']).nullable().optional(),
    periodic_reset_days: z.number().int().min(1).max(365).nullable().optional(),
    next_usage_reset_at: z.iso.datetime({ offset: true }).nullable().optional(),
  })
  .strict()
  .superRefine((limit, ctx) => {
    if (limit.type === 'tokens' && !Number.isInteger(limit.credit_limit)) {
      ctx.addIssue({ code: 'custom', path: ['credit_limit'], message: 'must be a whole number of tokens' });
    }
    if (limit.alert_threshold != null && limit.alert_threshold >= limit.credit_limit) {
      ctx.addIssue({ code: 'custom', path: ['alert_threshold'], message: 'must be below credit_limit' });
    }
    if (limit.periodic_reset != null && limit.periodic_reset_days != null) {
      ctx.addIssue({
        code: 'custom',
        path: ['periodic_reset_days'],
        message: 'periodic_reset and periodic_reset_days are mutually exclusive',
      });
    }
    if (limit.next_usage_reset_at != null) {
      if (limit.periodic_reset == null && limit.periodic_reset_days == null) {
        ctx.addIssue({
          code: 'custom',
          path: ['next_usage_reset_at'],
          message: 'needs periodic_reset or periodic_reset_days',
        });
      } else if (Date.parse(limit.next_usage_reset_at) <= Date.now()) {
        ctx.addIssue({ code: 'custom', path: ['next_usage_reset_at'], message: 'must be in the future' });
      }
    }
  });

/**
 * One usage limit per type. A single object is accepted and normalised to a one-element array
 * before validation, so every error names its field (`usage_limits.0.periodic_reset_days`).
 */
export const usageLimitsSchema = z.preprocess(
  (value) => (value !== null && typeof value === 'object' && !Array.isArray(value) ? [value] : value),
  z
    .array(usageLimitSchema)
    .max(2)
    .refine((limits) => new Set(limits.map((l) => l.type)).size === limits.length, {
      message: 'at most one usage limit per type',
    }),
);

/** Limits as responses show them. */
export const rateLimitOut = z.object({
  type: z.enum(['requests', 'tokens']),
  unit: z.enum(['rpm', 'rph', 'rpd']),
  value: z.number(),
});

export const usageLimitOut = z.object({
  type: z.enum(['cost', 'tokens']),
  credit_limit: z.number(),
  alert_threshold: z.number().nullable().optional(),
  periodic_reset: z.enum(['weekly', 'monthly']).nullable().optional(),
  periodic_reset_days: z.number().int().nullable().optional(),
  next_usage_reset_at: z.string().nullable().optional(),
  /** Spent so far in this period: USD for `cost` (fractional), tokens for `tokens`; 0 until reported. */
  current_usage: z.number(),
});

/** A limit's `periodic_reset` as the proto enum (unset: the limit resets by days or never). */
export function periodicResetToProto(value: 'weekly' | 'monthly' | null | undefined): PeriodicReset {
  return value === 'weekly'
    ? PeriodicReset.WEEKLY
    : value === 'monthly'
      ? PeriodicReset.MONTHLY
      : PeriodicReset.UNSPECIFIED;
}

export type RateLimitInput = z.output<typeof rateLimitSchema>;
export type UsageLimitInput = z.output<typeof usageLimitSchema>;

const RATE_TYPE = { requests: RateLimitType.REQUESTS, tokens: RateLimitType.TOKENS };
const RATE_UNIT = {
  rpm: RateLimitUnit.RPM,
  rph: RateLimitUnit.RPH,
  rpd: RateLimitUnit.RPD,
};

export function rateLimitsToProto(limits: readonly RateLimitInput[]): RateLimit[] {
  return limits.map((l) => ({ type: RATE_TYPE[l.type], unit: RATE_UNIT[l.unit], value: l.value }));
}

export function usageLimitsToProto(limits: readonly UsageLimitInput[]): UsageLimit[] {
  return limits.map((l) => {
    const scale = l.type === 'cost' ? MICROS : 1;
    return {
      type: l.type === 'cost' ? UsageLimitType.COST : UsageLimitType.TOKENS,
      creditLimit: Math.round(l.credit_limit * scale),
      ...(l.alert_threshold != null ? { alertThreshold: Math.round(l.alert_threshold * scale) } : {}),
      periodicReset: periodicResetToProto(l.periodic_reset),
      periodicResetDays: l.periodic_reset_days ?? 0,
      nextUsageResetAtMs: l.next_usage_reset_at ? Date.parse(l.next_usage_reset_at) : 0,
    };
  });
}
