// Custom key-value tags on integrations and providers, and the `tags=key:value` list filter.
import { type SqlBool, sql } from 'kysely';
import { z } from 'zod';

const TAG_KEY = /^[A-Za-z0-9_.-]{1,64}$/;
const MAX_TAGS = 20;

export const tagsSchema = z
  .record(
    z.string().regex(TAG_KEY, 'tag keys are 1 to 64 letters, digits, "_", "." or "-"'),
    z.string().max(256),
  )
  .refine((tags) => Object.keys(tags).length <= MAX_TAGS, `at most ${MAX_TAGS} tags`);

/**
 * `?tags=team:core&tags=env:prod`: each parameter one `key:value` pair (split at the first `:`, so
 * values may contain `:` and `,`); every pair must match.
 */
export const tagFilterSchema = z
  .union([z.string(), z.array(z.string()).max(MAX_TAGS)])
  .transform((value) => (Array.isArray(value) ? value : [value]))
  .pipe(
    z.array(
      z
        .string()
        .max(64 + 1 + 256)
        .regex(/^[A-Za-z0-9_.-]{1,64}:/, 'must be key:value with a tag key before the ":"'),
    ),
  )
  .transform((pairs) =>
    pairs.map((pair) => [pair.slice(0, pair.indexOf(':')), pair.slice(pair.indexOf(':') + 1)]),
  )
  .refine((pairs) => new Set(pairs.map(([key]) => key)).size === pairs.length, 'name each tag key once')
  .transform((pairs) => Object.fromEntries(pairs) as Record<string, string>);

/** Rows whose tags contain every pair of the filter (GIN-indexed `@>`). */
export function tagsContain(filter: Record<string, string>) {
  return sql<SqlBool>`${sql.ref('tags')} @> ${JSON.stringify(filter)}::jsonb`;
}
