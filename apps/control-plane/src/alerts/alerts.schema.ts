// Request and response shapes of the alert routes (they validate requests and generate OpenAPI).
import { z } from 'zod';
import { csvEnum, idOrSlug, listSchema, pageQuery } from '../http/list.js';

const isoDateTime = z.iso.datetime({ offset: true });
const isoDate = z.iso.date();

/** ISO 8601: a date-time with Z or an offset, or a date (UTC midnight). */
const time = z
  .string()
  .max(64)
  .refine((v) => isoDateTime.safeParse(v).success || isoDate.safeParse(v).success, {
    message: 'must be an ISO 8601 time (2026-11-01T00:00:00Z) or date (2026-11-01, UTC)',
  })
  .transform((v) => Date.parse(isoDate.safeParse(v).success ? `${v}T00:00:00Z` : v));

const ENTITY_TYPES = [
  'usage_limit_policy',
  'rate_limit_policy',
  'api_key',
  'workspace',
  'provider',
  'integration',
] as const;
const KINDS = ['threshold', 'exhausted', 'rate_limited'] as const;

const filterFields = {
  ...pageQuery,
  /** Alerts of this workspace (id or slug). */
  workspace_id: idOrSlug.optional(),
  /** `threshold`, `exhausted`, `rate_limited`, or several comma-separated. */
  kind: csvEnum(KINDS).optional(),
  /** What carries the limit: a usage-limits policy, or an entity's own usage limit. */
  entity_type: z.enum(ENTITY_TYPES).optional(),
  /** The entity carrying the limit, or one a policy's group names (an API key, a workspace). */
  entity_id: z.uuid().optional(),
  /** Alerts raised at or after this time. */
  start_time: time.optional(),
  /** Alerts raised before this time. */
  end_time: time.optional(),
  /** `active` (not reset by a limit change or a usage reset) or `reset`. */
  status: z.enum(['active', 'reset']).optional(),
};

export const listAlertsQuery = z.object({ ...filterFields, policy_id: z.uuid().optional() }).strict();

export const policyAlertsQuery = z.object(filterFields).strict();

export const policyAlertsParams = z.object({ usageLimitsPolicyId: z.uuid() });

const timestamp = z.string();

export const alertSchema = z.object({
  object: z.literal('alert'),
  id: z.uuid(),
  kind: z.enum(KINDS),
  organisation_id: z.uuid(),
  workspace_id: z.uuid().nullable(),
  policy_id: z.uuid().nullable(),
  entity: z.object({ object: z.string(), type: z.enum(ENTITY_TYPES), id: z.uuid() }),
  group: z.record(z.string(), z.string()),
  type: z.enum(['cost', 'tokens', 'requests']),
  usage: z
    .number()
    .describe('USD for cost limits, tokens for token limits, requests for request rate limits'),
  /** Rate-limit alerts: the window's length in milliseconds (`period_start` is its start). */
  window_ms: z.number().int().nullable(),
  credit_limit: z.number(),
  alert_threshold: z.number().nullable(),
  period_start: timestamp.nullable(),
  occurred_at: timestamp,
  created_at: timestamp,
  reset_at: timestamp.nullable(),
  email: z.object({
    state: z.enum(['pending', 'sent', 'failed', 'off', 'no_recipients']),
    attempts: z.number().int(),
    sent_at: timestamp.nullable(),
    recipients: z.array(
      z.object({
        user_id: z.uuid(),
        email: z.string(),
        reason: z.enum(['organisation_owner', 'organisation_admin', 'workspace_manager']),
      }),
    ),
  }),
});

export const alertListSchema = listSchema(alertSchema);
