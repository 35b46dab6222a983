// Workspace slugs: the given one is checked; a missing one is derived from the name and made unique
// within the organisation by a numeric suffix.
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { isUuid } from '../auth/visibility.js';
import type { ControlDatabase } from '../db/schema.js';

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;
const MAX_LENGTH = 63;

/** A slug shaped like a uuid would be read as an id by `GET /workspaces/:workspaceId`, so it is refused. */
export const slugSchema = z
  .string()
  .regex(SLUG, 'must be 1 to 63 lowercase letters, digits or "-", starting with a letter or digit')
  .refine((s) => !isUuid(s), 'must not have the form of a uuid');

/** `Acme Prod (EU)` -> `acme-prod-eu`; names without letters or digits give `workspace`. */
export function slugFromName(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_LENGTH)
    .replace(/-+$/, '');
  return base === '' || isUuid(base) ? 'workspace' : base;
}

/** The first free slug among `base`, `base-2`, `base-3`, ... in the organisation. */
export async function uniqueSlug(
  db: Kysely<ControlDatabase>,
  organisationId: string,
  base: string,
): Promise<string> {
  // `base` holds only [a-z0-9-], so it carries no LIKE wildcard; every candidate, truncated to make
  // room for its suffix, still starts with the first 48 characters of `base`.
  const taken = new Set(
    (
      await db
        .selectFrom('workspaces')
        .select('slug')
        .where('organisation_id', '=', organisationId)
        .where('slug', 'like', `${base.slice(0, 48)}%`)
        .execute()
    ).map((r) => r.slug),
  );
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = `${base.slice(0, MAX_LENGTH - suffix.length).replace(/-+$/, '')}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}
