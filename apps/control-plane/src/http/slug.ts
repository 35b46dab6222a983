// Slugs derived from names: lowercase ASCII words joined by "-", made free by a numeric suffix.
import { isUuid } from '../auth/visibility.js';

/** The longest slug an entity gets unless it says otherwise. */
export const SLUG_MAX_LENGTH = 63;

/**
 * `PII guard (EU)` -> `pii-guard-eu`; names without letters or digits, or that would read as a uuid,
 * give `fallback`.
 */
export function slugFromName(name: string, fallback: string, maxLength = SLUG_MAX_LENGTH): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, maxLength)
    .replace(/-+$/, '');
  return base === '' || isUuid(base) ? fallback : base;
}

/** The first of `base`, `base-2`, `base-3`, ... not in `taken`. */
export function firstFreeSlug(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = `${base.slice(0, SLUG_MAX_LENGTH - suffix.length).replace(/-+$/, '')}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** `LIKE` prefix matching every candidate of `firstFreeSlug` (a derived base holds no wildcard). */
export function candidatePrefix(base: string): string {
  return `${base.slice(0, 48)}%`;
}
