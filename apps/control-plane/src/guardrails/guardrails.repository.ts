// Guardrail rows: lookups narrowed to what the caller may see (a workspace sees its own and the
// organisation's), slugs that never clash between a workspace and its organisation, and writes that
// refuse to leave a config pointing at a guardrail that is gone, archived or renamed.
import { EntityKind } from '@aigw/proto';
import { type ExpressionBuilder, type Insertable, type Kysely, sql, type Updateable } from 'kysely';
import { conflict, forbidden, invalid, notFound } from '../api-errors.js';
import type { Principal } from '../auth/principal.js';
import { isUuid } from '../auth/visibility.js';
import { type ConfigDatabase, configDb } from '../db/configs.db.js';
import type { GuardrailRow, GuardrailsTable, SavedStatus } from '../db/guardrails.db.js';
import { readPage } from '../db/page-read.js';
import type { ControlDatabase } from '../db/schema.js';
import { lockSlugs } from '../db/slug-lock.js';
import { pageBounds } from '../http/list.js';
import type { MutationTx } from '../http/route.js';
import { candidatePrefix, firstFreeSlug, slugFromName } from '../http/slug.js';
import { writeTombstone } from '../tombstones/tombstones.js';
import { guardrailEntity } from './guardrails.entity.js';

type Db = Kysely<ControlDatabase>;
type Eb = ExpressionBuilder<ConfigDatabase, 'guardrails'>;

/** The guardrails a workspace may use: its own and the organisation-level ones. */
export function usableIn(workspaceId: string) {
  return (eb: Eb) => eb.or([eb('workspace_id', '=', workspaceId), eb('workspace_id', 'is', null)]);
}

export function visibleTo(principal: Principal) {
  return (eb: Eb) =>
    eb.and([
      eb('organisation_id', '=', principal.organisationId),
      ...(principal.workspaceId !== null ? [usableIn(principal.workspaceId)(eb)] : []),
    ]);
}

/**
 * The guardrail named by id or slug when the caller may see it, else 404 AB08. A slug may name
 * guardrails of several workspaces for an organisation-level caller: `workspaceId` then picks one.
 */
export async function findVisibleGuardrail(
  db: Db,
  principal: Principal,
  ref: string,
  options: { workspaceId?: string | undefined; forUpdate?: boolean } = {},
): Promise<GuardrailRow> {
  let query = configDb(db).selectFrom('guardrails').selectAll().where(visibleTo(principal));
  if (options.workspaceId !== undefined) query = query.where(usableIn(options.workspaceId));
  query = isUuid(ref) ? query.where('id', '=', ref.toLowerCase()) : query.where('slug', '=', ref);
  if (options.forUpdate) query = query.forUpdate();
  const rows = await query.limit(2).execute();
  if (rows.length > 1) {
    throw invalid(
      `several guardrails have the slug "${ref}": name their workspace in workspace_id`,
      'query.workspace_id',
    );
  }
  if (!rows[0]) throw notFound('guardrail');
  return rows[0];
}

/** Workspace-bound callers may use organisation-level guardrails, not change them. */
export function assertWritable(principal: Principal, row: GuardrailRow): void {
  if (principal.workspaceId !== null && row.workspace_id === null) {
    throw forbidden('organisation-level guardrails are managed by organisation-level callers');
  }
}

export interface GuardrailFilters {
  readonly page_size: number;
  readonly current_page: number;
  readonly workspaceId?: string;
  readonly status: readonly SavedStatus[];
  readonly name?: string;
}

export async function listGuardrails(
  db: Db,
  principal: Principal,
  filters: GuardrailFilters,
): Promise<{ rows: GuardrailRow[]; total: number }> {
  let base = configDb(db)
    .selectFrom('guardrails')
    .where(visibleTo(principal))
    .where('status', 'in', filters.status);
  if (filters.workspaceId !== undefined) base = base.where(usableIn(filters.workspaceId));
  if (filters.name !== undefined) base = base.where('name', '=', filters.name);
  const { limit, offset } = pageBounds(filters);
  return readPage(db, base, (q) =>
    q.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(limit).offset(offset),
  );
}

/** Slugs a new guardrail of this scope would clash with: same workspace, or organisation level. */
function clashing(organisationId: string, workspaceId: string | null) {
  return (eb: Eb) =>
    eb.and([
      eb('organisation_id', '=', organisationId),
      // An organisation-level slug is visible from every workspace, so it must be free in all of them.
      ...(workspaceId === null ? [] : [usableIn(workspaceId)(eb)]),
    ]);
}

/** Claims `slug` (or one derived from `name`) for a guardrail of this scope; 409 AB07 when taken. */
async function claimSlug(
  db: Db,
  scope: { organisationId: string; workspaceId: string | null; exceptId?: string },
  wanted: { slug?: string | undefined; name: string },
): Promise<string> {
  const guardrails = configDb(db);
  await lockSlugs(db, `guardrails:${scope.organisationId}`);
  let query = guardrails
    .selectFrom('guardrails')
    .select('slug')
    .where(clashing(scope.organisationId, scope.workspaceId));
  if (scope.exceptId !== undefined) query = query.where('id', '<>', scope.exceptId);
  if (wanted.slug === undefined) {
    const base = slugFromName(wanted.name, 'guardrail');
    const taken = await query.where('slug', 'like', candidatePrefix(base)).execute();
    return firstFreeSlug(base, new Set(taken.map((r) => r.slug)));
  }
  if (await query.where('slug', '=', wanted.slug).executeTakeFirst()) {
    const where = scope.workspaceId === null ? 'organisation' : 'workspace or its organisation';
    throw conflict(`a guardrail with slug "${wanted.slug}" already exists in the ${where}`, 'body.slug');
  }
  return wanted.slug;
}

export async function insertGuardrail(
  tx: MutationTx,
  values: Omit<Insertable<GuardrailsTable>, 'slug'>,
  slug: string | undefined,
): Promise<GuardrailRow> {
  const claimed = await claimSlug(
    tx.db,
    { organisationId: values.organisation_id, workspaceId: values.workspace_id ?? null },
    { slug, name: values.name },
  );
  const row = await configDb(tx.db)
    .insertInto('guardrails')
    .values({ ...values, slug: claimed })
    .returningAll()
    .executeTakeFirstOrThrow();
  await tx.change(guardrailEntity(row));
  return row;
}

/** Slugs of the configs whose latest version references the guardrail (at most `limit`). */
export async function configsUsing(db: Db, guardrailId: string, limit = 5): Promise<string[]> {
  const rows = await configDb(db)
    .selectFrom('configs')
    .select('slug')
    .where('guardrail_ids', '@>', sql<string[]>`array[${guardrailId}]::uuid[]`)
    .orderBy('slug')
    .limit(limit)
    .execute();
  return rows.map((r) => r.slug);
}

/** 409 AB07 while a config references the guardrail: it would be left pointing at nothing. */
export async function assertUnreferenced(db: Db, row: GuardrailRow, change: string): Promise<void> {
  const slugs = await configsUsing(db, row.id);
  if (slugs.length === 0) return;
  throw conflict(
    `cannot ${change} guardrail "${row.slug}": configs reference it (${slugs.join(', ')}); remove it from them first`,
  );
}

export async function updateGuardrail(
  tx: MutationTx,
  current: GuardrailRow,
  changes: Updateable<GuardrailsTable>,
): Promise<GuardrailRow> {
  if (changes.status === 'archived' && current.status !== 'archived') {
    await assertUnreferenced(tx.db, current, 'archive');
  }
  if (changes.slug !== undefined && changes.slug !== current.slug) {
    await assertUnreferenced(tx.db, current, 'rename');
    await claimSlug(
      tx.db,
      { organisationId: current.organisation_id, workspaceId: current.workspace_id, exceptId: current.id },
      { slug: changes.slug, name: current.name },
    );
  }
  const row = await configDb(tx.db)
    .updateTable('guardrails')
    .set({ ...changes, version: sql<number>`version + 1`, updated_at: new Date() })
    .where('id', '=', current.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await tx.change(guardrailEntity(row));
  return row;
}

export async function deleteGuardrail(tx: MutationTx, row: GuardrailRow): Promise<void> {
  await assertUnreferenced(tx.db, row, 'delete');
  await configDb(tx.db).deleteFrom('guardrails').where('id', '=', row.id).execute();
  await tx.change(
    await writeTombstone(tx.db, {
      kind: EntityKind.GUARDRAIL,
      id: row.id,
      organisationId: row.organisation_id,
      workspaceId: row.workspace_id,
      lastVersion: Number(row.version),
    }),
  );
}
