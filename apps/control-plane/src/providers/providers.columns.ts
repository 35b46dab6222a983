// Provider columns written from a request body; shared by the provider and legacy virtual key routes.
import type { Updateable } from 'kysely';
import type { ProvidersTable } from '../db/schema.js';
import type { RateLimitInput, UsageLimitInput } from '../limits/limits.schema.js';

interface LimitInput {
  allowed_models?: string[] | undefined;
  rate_limits?: RateLimitInput[] | undefined;
  usage_limits?: UsageLimitInput[] | undefined;
  expires_at?: Date | undefined;
}

interface ChangeInput {
  name?: string | undefined;
  slug?: string | undefined;
  note?: string | undefined;
  status?: 'active' | 'disabled' | undefined;
  allowed_models?: string[] | undefined;
  rate_limits?: RateLimitInput[] | null | undefined;
  usage_limits?: UsageLimitInput[] | null | undefined;
  expires_at?: Date | null | undefined;
}

/** The limit columns of a new provider; an absent limit is none. */
export function limitColumns(body: LimitInput) {
  return {
    allowed_models: body.allowed_models ?? [],
    rate_limits: JSON.stringify(body.rate_limits ?? []),
    usage_limits: JSON.stringify(body.usage_limits ?? []),
    expires_at: body.expires_at ?? null,
  };
}

/** The columns an update changes: only the fields given; a null limit list clears it. */
export function changedColumns(body: ChangeInput): Updateable<ProvidersTable> {
  return {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.slug !== undefined ? { slug: body.slug } : {}),
    ...(body.note !== undefined ? { note: body.note } : {}),
    ...(body.status !== undefined ? { status: body.status } : {}),
    ...(body.allowed_models !== undefined ? { allowed_models: body.allowed_models } : {}),
    ...(body.rate_limits !== undefined ? { rate_limits: JSON.stringify(body.rate_limits ?? []) } : {}),
    ...(body.usage_limits !== undefined ? { usage_limits: JSON.stringify(body.usage_limits ?? []) } : {}),
    ...(body.expires_at !== undefined ? { expires_at: body.expires_at } : {}),
  };
}
