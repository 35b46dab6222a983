// Dangling references are refused: every `@slug` provider and legacy virtual key a config names must
// be a provider of its workspace, every saved guardrail an active guardrail of the workspace or its
// organisation. Guardrail rows are locked (FOR SHARE) so they cannot be deleted before the commit.
import type { Kysely } from 'kysely';
import { referenceNotFound } from '../api-errors.js';
import { isUuid } from '../auth/visibility.js';
import { configDb } from '../db/configs.db.js';
import type { ControlDatabase } from '../db/schema.js';
import { usableIn } from '../guardrails/guardrails.repository.js';
import type { ConfigReferences } from './configs.validate.js';

export interface ReferenceScope {
  readonly organisationId: string;
  readonly workspaceId: string;
}

/** 404 AB02 naming the path of the first dangling reference; else the guardrail ids referenced. */
export async function resolveReferences(
  db: Kysely<ControlDatabase>,
  scope: ReferenceScope,
  references: ConfigReferences,
): Promise<string[]> {
  await checkProviders(db, scope, references);
  return resolveGuardrails(db, scope, references);
}

async function checkProviders(
  db: Kysely<ControlDatabase>,
  scope: ReferenceScope,
  { providers }: ConfigReferences,
): Promise<void> {
  if (providers.length === 0) return;
  const rows = await db
    .selectFrom('providers')
    .select('slug')
    .where('organisation_id', '=', scope.organisationId)
    .where('workspace_id', '=', scope.workspaceId)
    .where('slug', 'in', [...new Set(providers.map((p) => p.slug))])
    .execute();
  const found = new Set(rows.map((r) => r.slug));
  const missing = providers.find((p) => !found.has(p.slug));
  if (missing) {
    throw referenceNotFound(`${missing.path}: no provider "${missing.slug}" in this workspace`, missing.path);
  }
}

async function resolveGuardrails(
  db: Kysely<ControlDatabase>,
  scope: ReferenceScope,
  { guardrails }: ConfigReferences,
): Promise<string[]> {
  if (guardrails.length === 0) return [];
  const ids = [...new Set(guardrails.filter((g) => isUuid(g.ref)).map((g) => g.ref.toLowerCase()))];
  const slugs = [...new Set(guardrails.filter((g) => !isUuid(g.ref)).map((g) => g.ref))];
  const rows = await configDb(db)
    .selectFrom('guardrails')
    .select(['id', 'slug'])
    .where('organisation_id', '=', scope.organisationId)
    .where(usableIn(scope.workspaceId))
    .where('status', '=', 'active')
    .where((eb) =>
      eb.or([
        ...(ids.length > 0 ? [eb('id', 'in', ids)] : []),
        ...(slugs.length > 0 ? [eb('slug', 'in', slugs)] : []),
      ]),
    )
    .orderBy('id')
    .forShare()
    .execute();
  const byRef = new Map<string, string>();
  for (const row of rows) {
    byRef.set(row.id, row.id);
    byRef.set(row.slug, row.id);
  }
  const resolved: string[] = [];
  for (const guardrail of guardrails) {
    const id = byRef.get(isUuid(guardrail.ref) ? guardrail.ref.toLowerCase() : guardrail.ref);
    if (id === undefined) {
      throw referenceNotFound(
        `${guardrail.path}: no active guardrail "${guardrail.ref}" in this workspace or its organisation`,
        guardrail.path,
      );
    }
    resolved.push(id);
  }
  return [...new Set(resolved)];
}
