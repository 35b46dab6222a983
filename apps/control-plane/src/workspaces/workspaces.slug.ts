// Workspace slugs: the given one is checked; a missing one (derived by http/slug.ts) is made unique
// within the organisation by a numeric suffix.
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { isUuid } from '../auth/visibility.js';
import type { ControlDatabase } from '../db/schema.js';
import { candidatePrefix, firstFreeSlug } from '../http/slug.js';

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** A slug shaped like a uuid would be read as an id by `GET /workspaces/:workspaceId`, so it is refused. */
export const slugSchema = z
  .string()
  .regex(SLUG, 'must be 1 to 63 lowercase letters, digits or "-", starting with a letter or digit')
  .refine((s) => !isUuid(s), 'must not have the form of a uuid');

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
        .where('slug', 'like', candidatePrefix(base))
        .execute()
    ).map((r) => r.slug),
  );
  return firstFreeSlug(base, taken);
}
