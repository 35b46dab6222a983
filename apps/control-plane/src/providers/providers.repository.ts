// Provider rows (shared by the providers and virtual-keys routes): queries narrowed to what the caller
// may see, writes that announce both entity kinds, and deletes that leave both tombstones.
import { EntityKind } from '@aigw/proto';
import {
  type Expression,
  type ExpressionBuilder,
  type Insertable,
  type Kysely,
  type SqlBool,
  sql,
  type Updateable,
} from 'kysely';
import { conflict, invalid, notFound } from '../api-errors.js';
import type { Principal } from '../auth/principal.js';
import { isUuid } from '../auth/visibility.js';
import { readPage } from '../db/page-read.js';
import type { ControlDatabase, ProvidersTable } from '../db/schema.js';
import { pageBounds } from '../http/list.js';
import type { MutationTx } from '../http/route.js';
import { tagsContain } from '../integrations/tags.js';
import { writeTombstone } from '../tombstones/tombstones.js';
import { type ProviderRow, providerEntity } from './providers.entity.js';
import { virtualKeyEntity } from './virtual-keys.entity.js';

type Db = Kysely<ControlDatabase>;
type Eb = ExpressionBuilder<ControlDatabase, 'providers'>;

const NOTHING = sql<SqlBool>`false`;

/** Token callers may carry ids that are not uuids: they match nothing instead of failing the query. */
function matches(eb: Eb, column: 'organisation_id' | 'workspace_id', value: string): Expression<SqlBool> {
  return isUuid(value) ? eb(column, '=', value.toLowerCase()) : NOTHING;
}

export function visibleTo(principal: Principal) {
  return (eb: Eb) =>
    eb.and([
      matches(eb, 'organisation_id', principal.organisationId),
      ...(principal.workspaceId !== null ? [matches(eb, 'workspace_id', principal.workspaceId)] : []),
    ]);
}

/**
 * The provider named by id or slug (spec 5.2: the slug of `@<slug>`) when the caller may see it,
 * else 404 AB08 (`what` names it in the message). Slugs are unique per workspace, so for an
 * organisation-level caller one may name providers of several workspaces: `workspaceId` picks one.
 */
export async function findVisibleProvider(
  db: Db,
  principal: Principal,
  ref: string,
  options: { forUpdate?: boolean; what?: string; workspaceId?: string | undefined } = {},
): Promise<ProviderRow> {
  let query = db.selectFrom('providers').selectAll().where(visibleTo(principal));
  query = isUuid(ref) ? query.where('id', '=', ref.toLowerCase()) : query.where('slug', '=', ref);
  if (options.workspaceId !== undefined) query = query.where('workspace_id', '=', options.workspaceId);
  if (options.forUpdate) query = query.forUpdate();
  const rows = await query.limit(2).execute();
  if (rows.length > 1) {
    throw invalid(
      `several providers have the slug "${ref}": name their workspace in workspace_id`,
      'query.workspace_id',
    );
  }
  if (!rows[0]) throw notFound(options.what ?? 'provider');
  return rows[0];
}

export interface ProviderFilters {
  readonly page_size: number;
  readonly current_page: number;
  readonly workspaceId?: string;
  readonly integrationId?: string;
  readonly ai_provider?: readonly string[];
  readonly status?: readonly ('active' | 'expired' | 'disabled' | 'archived')[];
  readonly tags?: Record<string, string>;
}

/** `expired` also matches active rows past `expires_at` (the status responses derive). */
function statusIn(eb: Eb, statuses: readonly string[]): Expression<SqlBool> {
  const now = new Date();
  const live = eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]);
  return eb.or(
    statuses.map((status) => {
      if (status === 'active') return eb.and([eb('status', '=', 'active'), live]);
      if (status === 'expired')
        return eb.or([
          eb('status', '=', 'expired'),
          eb.and([eb('status', '=', 'active'), eb('expires_at', '<=', now)]),
        ]);
      return eb('status', '=', status as 'disabled' | 'archived');
    }),
  );
}

export async function listProviders(
  db: Db,
  principal: Principal,
  filters: ProviderFilters,
): Promise<{ rows: ProviderRow[]; total: number }> {
  let base = db.selectFrom('providers').where(visibleTo(principal));
  if (filters.workspaceId !== undefined) base = base.where('workspace_id', '=', filters.workspaceId);
  if (filters.integrationId !== undefined) base = base.where('integration_id', '=', filters.integrationId);
  if (filters.ai_provider) base = base.where('ai_provider', 'in', filters.ai_provider);
  const { status, tags } = filters;
  if (status) base = base.where((eb) => statusIn(eb, status));
  if (tags) base = base.where(tagsContain(tags));
  const { limit, offset } = pageBounds(filters);
  return readPage(db, base, (q) =>
    q.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(limit).offset(offset),
  );
}

/** Who created a row; token subjects that are not user ids are not kept. */
export function creatorOf(principal: Principal) {
  return {
    created_by_user_id: principal.userId !== null && isUuid(principal.userId) ? principal.userId : null,
    created_by_api_key_id: principal.apiKeyId,
  };
}

function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: unknown }).code === '23505';
}

export function slugTaken(slug: string, param: string) {
  return conflict(`a provider with slug "${slug}" already exists in the workspace`, param);
}

/** Inserts a provider and announces it (PROVIDER and VIRTUAL_KEY entities). */
export async function insertProvider(
  tx: MutationTx,
  values: Insertable<ProvidersTable>,
  slugParam: string,
): Promise<ProviderRow> {
  let row: ProviderRow;
  try {
    row = await tx.db.insertInto('providers').values(values).returningAll().executeTakeFirstOrThrow();
  } catch (err) {
    if (isUniqueViolation(err)) throw slugTaken(values.slug, slugParam);
    throw err;
  }
  await announceProvider(tx, row);
  return row;
}

/** Writes a change and announces it; a slug clash is 409 AB07 on `body.slug`. */
export async function updateProvider(
  tx: MutationTx,
  id: string,
  changes: Updateable<ProvidersTable>,
  slug: string,
): Promise<ProviderRow> {
  let row: ProviderRow;
  try {
    row = await tx.db
      .updateTable('providers')
      .set({ ...changes, version: sql<number>`version + 1`, updated_at: new Date() })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  } catch (err) {
    if (isUniqueViolation(err)) throw slugTaken(slug, 'body.slug');
    throw err;
  }
  await announceProvider(tx, row);
  return row;
}

export async function announceProvider(tx: MutationTx, row: ProviderRow): Promise<void> {
  await tx.change(providerEntity(row));
  await tx.change(virtualKeyEntity(row));
}

/** Removes the row and records a tombstone for each of its two entity kinds. */
export async function deleteProvider(tx: MutationTx, row: ProviderRow): Promise<void> {
  await tx.db.deleteFrom('providers').where('id', '=', row.id).execute();
  for (const kind of [EntityKind.PROVIDER, EntityKind.VIRTUAL_KEY]) {
    await tx.change(
      await writeTombstone(tx.db, {
        kind,
        id: row.id,
        organisationId: row.organisation_id,
        workspaceId: row.workspace_id,
        lastVersion: Number(row.version),
      }),
    );
  }
}
