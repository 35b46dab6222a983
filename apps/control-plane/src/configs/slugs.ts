// Slugs of configs and guardrails: derived from the name when none is given, made free by a numeric
// suffix, and claimed under a transaction lock so two creations cannot pick the same one.
import { type Kysely, sql } from 'kysely';
import { isUuid } from '../auth/visibility.js';

const MAX_LENGTH = 63;

/** `PII guard (EU)` -> `pii-guard-eu`; names without letters or digits give `fallback`. */
export function slugFromName(name: string, fallback: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_LENGTH)
    .replace(/-+$/, '');
  return base === '' || isUuid(base) ? fallback : base;
}

/** The first of `base`, `base-2`, `base-3`, ... not in `taken`. */
export function firstFreeSlug(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = `${base.slice(0, MAX_LENGTH - suffix.length).replace(/-+$/, '')}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** `LIKE` prefix matching every candidate of `firstFreeSlug` (a derived base holds no wildcard). */
export function candidatePrefix(base: string): string {
  return `${base.slice(0, 48)}%`;
}

/**
 * Serialises slug writes of one namespace (`guardrails:<organisation>`, `configs:<workspace>`) until
 * the transaction ends, so that checking a slug and inserting it is one step.
 */
export async function lockSlugs<DB>(db: Kysely<DB>, namespace: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${namespace}, 0))`.execute(db);
}
