// List conventions of the admin API: `{object:"list", data, total}` with page_size and current_page.
import { type ZodType, z } from 'zod';

export const MAX_PAGE_SIZE = 500;

/** Spread into a query schema: `z.object({ ...pageQuery, status: ... })`. */
export const pageQuery = {
  page_size: z.coerce.number().int().min(0).max(MAX_PAGE_SIZE).default(50),
  current_page: z.coerce.number().int().min(0).max(1_000_000).default(0),
};

export interface Page {
  readonly page_size: number;
  readonly current_page: number;
}

export function pageBounds(page: Page): { limit: number; offset: number } {
  return { limit: page.page_size, offset: page.page_size * page.current_page };
}

export interface List<T> {
  readonly object: 'list';
  readonly data: T[];
  readonly total: number;
}

export function toList<T>(data: T[], total: number | string | bigint): List<T> {
  return { object: 'list', data, total: Number(total) };
}

export function listSchema(item: ZodType) {
  return z.object({ object: z.literal('list'), data: z.array(item), total: z.number().int() });
}

/** A comma-separated query value (`status=active,archived`) restricted to `values`. */
export function csvEnum<const T extends readonly [string, ...string[]]>(values: T) {
  return z
    .string()
    .max(256)
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.enum(values)).min(1));
}

/** Id-or-slug path and query values: uuids or slugs only, so nothing odd reaches a query. */
export const idOrSlug = z
  .string()
  .max(255)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, 'must be a uuid or a slug');

export const uuid = z.uuid();

/** Disambiguates a slug for organisation-level callers (slugs are unique per workspace). */
export const workspaceLookupQuery = z.object({ workspace_id: idOrSlug.optional() }).strict();

/** Spread into the query of an archivable named entity: active ones by default, exact name match. */
export const statusAndNameQuery = {
  status: csvEnum(['active', 'archived']).default(['active']),
  /** Exact, case-sensitive name (no trimming, no pattern). */
  name: z
    .string()
    .min(1)
    .max(255)
    // Postgres text cannot hold NUL: such a value would fail the query (500) instead of matching nothing.
    .refine((v) => !v.includes('\u0000'), 'must not contain NUL characters')
    .optional(),
};
