// The log filter of /logs, /logs/groups, /analytics and log exports: query parameters (or an export's
// `filters` object) validated here and turned into the proto LogFilter the logger applies.
import { CacheStatus, type LogFilter } from '@aigw/proto';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Principal } from '../auth/principal.js';
import { lookupWorkspace } from '../auth/visibility.js';
import type { ControlDatabase } from '../db/schema.js';
import { idOrSlug, MAX_PAGE_SIZE } from '../http/list.js';

const MAX_VALUES = 100;
const token = z
  .string()
  .min(1)
  .max(255)
  .refine(
    (v) => !/[,]/.test(v) && [...v].every((c) => c.charCodeAt(0) >= 0x20),
    'must be printable text without commas',
  );

/** `a,b` or repeated parameters or a JSON array: a list of values. */
const list = <T extends z.ZodType<unknown, string>>(item: T) =>
  z
    .union([z.string().max(8192), z.array(z.string().max(8192)).max(MAX_VALUES)])
    .transform((v) =>
      (Array.isArray(v) ? v : [v])
        .flatMap((s) => s.split(','))
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(z.array(item).min(1).max(MAX_VALUES));

const isoDateTime = z.iso.datetime({ offset: true });
const isoDate = z.iso.date();
const TIME_MESSAGE =
  'must be an ISO 8601 time (2026-11-01T00:00:00Z, with Z or an offset) or date (2026-11-01, UTC), or epoch milliseconds';

/**
 * ISO 8601 (a date-time with Z or an offset, or a UTC date) or epoch milliseconds (digits only).
 * Nothing else: `Date.parse` would read `-1`, `$1` or `' OR '1'='1` as dates in 2001.
 */
const time = z.union([z.number(), z.string().max(64)]).transform((v, ctx) => {
  let ms = Number.NaN;
  if (typeof v === 'number') ms = v;
  else if (/^\d+$/.test(v)) ms = Number(v);
  else if (isoDateTime.safeParse(v).success) ms = Date.parse(v);
  else if (isoDate.safeParse(v).success) ms = Date.parse(`${v}T00:00:00Z`);
  if (!Number.isSafeInteger(ms) || ms <= 0) {
    ctx.addIssue({ code: 'custom', message: TIME_MESSAGE });
    return z.NEVER;
  }
  return ms;
});

const CACHE = {
  hit: CacheStatus.HIT,
  semantic_hit: CacheStatus.SEMANTIC_HIT,
  miss: CacheStatus.MISS,
  semantic_miss: CacheStatus.SEMANTIC_MISS,
  refresh: CacheStatus.REFRESH,
  disabled: CacheStatus.DISABLED,
} as const;

const usd = z.coerce.number().min(0).max(1e9);
const count = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** Spread into a query schema. */
export const logFilterFields = {
  start_time: time.optional(),
  end_time: time.optional(),
  workspace_id: idOrSlug.optional(),
  api_key_id: list(z.uuid()).optional(),
  provider: list(token).optional(),
  ai_service: list(token).optional(),
  model: list(token).optional(),
  status_code: list(
    z
      .string()
      .regex(/^\d{3}$/, 'must be a 3-digit HTTP status')
      .transform(Number),
  ).optional(),
  trace_id: z.string().min(1).max(255).optional(),
  /** JSON object of metadata values every log must carry: `{"_user":"u1"}`. */
  metadata: z
    .union([z.string().max(4096), z.record(z.string(), z.unknown())])
    .transform((v, ctx) => {
      try {
        const value: unknown = typeof v === 'string' ? JSON.parse(v) : v;
        if (value && typeof value === 'object' && !Array.isArray(value)) {
          const entries = Object.entries(value);
          if (entries.length <= 32 && entries.every(([k, x]) => k !== '' && typeof x === 'string'))
            return entries as [string, string][];
        }
      } catch {
        // reported below
      }
      ctx.addIssue({ code: 'custom', message: 'must be a JSON object of string values (at most 32 keys)' });
      return z.NEVER;
    })
    .optional(),
  min_cost: usd.optional(),
  max_cost: usd.optional(),
  min_tokens: count.optional(),
  max_tokens: count.optional(),
  config_id: list(token).optional(),
  prompt_id: list(token).optional(),
  cache_status: list(
    z.enum(Object.keys(CACHE) as [keyof typeof CACHE, ...(keyof typeof CACHE)[]]),
  ).optional(),
  user_id: list(token).optional(),
};

export const logFilterSchema = z.object(logFilterFields).strict();

/** Cursor paging of the log and audit lists (LogsService pages by an opaque `next_cursor`). */
export const cursorPageFields = {
  page_size: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(50),
  /** `next_cursor` of the previous page. */
  cursor: z
    .string()
    .max(512)
    .regex(/^[A-Za-z0-9_-]*$/, 'must be a next_cursor value')
    .optional(),
  /** Also count every matching row (one more query). */
  include_total: z.enum(['true', 'false']).default('false'),
};

type FilterInput = z.output<typeof logFilterSchema>;

const micros = (usdValue: number | undefined) =>
  usdValue === undefined ? undefined : Math.round(usdValue * 1e6);

/** The proto filter; `workspace_id` must be visible to the caller (404 otherwise). */
export async function toLogFilter(
  db: Kysely<ControlDatabase>,
  principal: Principal,
  q: Partial<FilterInput>,
): Promise<LogFilter> {
  const workspace = await lookupWorkspace(db, principal, q.workspace_id);
  return {
    fromMs: q.start_time ?? 0,
    toMs: q.end_time ?? 0,
    workspaceIds: workspace ? [workspace] : [],
    apiKeyIds: (q.api_key_id ?? []).map((id) => id.toLowerCase()),
    providerSlugs: (q.provider ?? []).map((p) => p.replace(/^@/, '')),
    aiServices: q.ai_service ?? [],
    models: q.model ?? [],
    statusCodes: q.status_code ?? [],
    traceId: q.trace_id ?? '',
    metadata: (q.metadata ?? []).map(([key, value]) => ({ key, value })),
    costMicros: range(micros(q.min_cost), micros(q.max_cost)),
    totalTokens: range(q.min_tokens, q.max_tokens),
    configIds: q.config_id ?? [],
    promptIds: q.prompt_id ?? [],
    cacheStatuses: (q.cache_status ?? []).map((c) => CACHE[c]),
    userIds: q.user_id ?? [],
  };
}

function range(min: number | undefined, max: number | undefined) {
  if (min === undefined && max === undefined) return undefined;
  return { ...(min === undefined ? {} : { min }), ...(max === undefined ? {} : { max }) };
}
