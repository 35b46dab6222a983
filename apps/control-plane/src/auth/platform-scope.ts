// Who operates the deployment, for audit records that belong to no organisation (a refused key or
// token whose organisation cannot be known, a failed invite accept with an unknown token): the
// owners and admins (and admin API keys) of the platform organisation, the first one created (the
// organisation `bootstrap` makes on an empty database). docs/decisions.md "Unattributed audit".
import type { Kysely } from 'kysely';
import { forbidden } from '../api-errors.js';
import type { ControlDatabase } from '../db/schema.js';
import type { Principal } from './principal.js';

/** The platform organisation's id: the oldest organisation (ties by id); null on an empty database. */
export async function platformOrganisationId(db: Kysely<ControlDatabase>): Promise<string | null> {
  const row = await db
    .selectFrom('organisations')
    .select('id')
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row?.id ?? null;
}

/** 403 unless the caller is an organisation-level owner or admin of the platform organisation. */
export async function requirePlatformOperator(
  db: Kysely<ControlDatabase>,
  principal: Principal,
): Promise<void> {
  const orgLevel =
    principal.workspaceId === null && (principal.role === 'owner' || principal.role === 'admin');
  if (orgLevel && principal.organisationId === (await platformOrganisationId(db))) return;
  throw forbidden(
    'scope=platform lists audit records of no organisation: only owners, admins and admin API keys of the platform organisation (the first one created) may read them',
  );
}
