// Prompt collections: nestable folders of a workspace's prompts. A collection cannot become its own
// ancestor, and is deleted only when it holds no prompt and no collection.
import type { Kysely } from 'kysely';
import { conflict, invalid, notFound, referenceNotFound } from '../api-errors.js';
import type { Principal } from '../auth/principal.js';
import { isUuid } from '../auth/visibility.js';
import { readPage } from '../db/page-read.js';
import type { ControlDatabase } from '../db/schema.js';
import { lockSlugs } from '../db/slug-lock.js';
import { type Page, pageBounds } from '../http/list.js';
import { candidatePrefix, firstFreeSlug, slugFromName } from '../http/slug.js';
import { type CollectionRow, promptDb } from './prompts.db.js';

type Db = Kysely<ControlDatabase>;

/** Nesting deeper than this is refused (and bounds the ancestor walk). */
export const MAX_COLLECTION_DEPTH = 16;

export function collectionToApi(row: CollectionRow) {
  return {
    id: row.id,
    object: 'collection' as const,
    organisation_id: row.organisation_id,
    workspace_id: row.workspace_id,
    parent_collection_id: row.parent_id,
    name: row.name,
    slug: row.slug,
    created_by_user_id: row.created_by_user_id,
    created_by_api_key_id: row.created_by_api_key_id,
    created_at: row.created_at.toISOString(),
    last_updated_at: row.updated_at.toISOString(),
  };
}

/**
 * The collection named by id or slug that the caller may see (404 AB08; AB02 with `missing:
 * 'reference'` when the body or query referred to it).
 */
export async function findCollection(
  db: Db,
  principal: Principal,
  ref: string,
  options: { workspaceId?: string | undefined; forUpdate?: boolean; missing?: 'reference' } = {},
): Promise<CollectionRow> {
  let query = promptDb(db)
    .selectFrom('prompt_collections')
    .selectAll()
    .where('organisation_id', '=', principal.organisationId);
  if (principal.workspaceId !== null) query = query.where('workspace_id', '=', principal.workspaceId);
  if (options.workspaceId !== undefined) query = query.where('workspace_id', '=', options.workspaceId);
  query = isUuid(ref) ? query.where('id', '=', ref.toLowerCase()) : query.where('slug', '=', ref);
  if (options.forUpdate) query = query.forUpdate();
  const rows = await query.limit(2).execute();
  if (rows.length > 1) {
    throw invalid(
      `several collections have the slug "${ref}": name their workspace in workspace_id`,
      'workspace_id',
    );
  }
  if (!rows[0]) {
    if (options.missing === 'reference') throw referenceNotFound(`no collection "${ref}" in the workspace`);
    throw notFound('collection');
  }
  return rows[0];
}

export async function listCollections(
  db: Db,
  principal: Principal,
  filters: Page & { workspaceId?: string | undefined; parentId?: string | undefined },
): Promise<{ rows: CollectionRow[]; total: number }> {
  let base = promptDb(db)
    .selectFrom('prompt_collections')
    .where('organisation_id', '=', principal.organisationId);
  if (principal.workspaceId !== null) base = base.where('workspace_id', '=', principal.workspaceId);
  if (filters.workspaceId !== undefined) base = base.where('workspace_id', '=', filters.workspaceId);
  if (filters.parentId !== undefined) base = base.where('parent_id', '=', filters.parentId);
  const { limit, offset } = pageBounds(filters);
  return readPage(db, base, (q) =>
    q.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(limit).offset(offset),
  );
}

/** Refuses a parent that is the collection itself or one of its descendants, or nests too deeply. */
export async function checkParent(db: Db, collectionId: string | null, parentId: string): Promise<void> {
  let cursor: string | null = parentId;
  for (let depth = 0; cursor !== null; depth++) {
    if (cursor === collectionId) {
      throw invalid(
        'a collection cannot be inside itself or one of its own collections',
        'body.parent_collection_id',
      );
    }
    if (depth >= MAX_COLLECTION_DEPTH) {
      throw invalid(`collections nest at most ${MAX_COLLECTION_DEPTH} deep`, 'body.parent_collection_id');
    }
    const row: { parent_id: string | null } | undefined = await promptDb(db)
      .selectFrom('prompt_collections')
      .select('parent_id')
      .where('id', '=', cursor)
      .executeTakeFirst();
    cursor = row?.parent_id ?? null;
  }
}

export async function freeCollectionSlug(db: Db, workspaceId: string, name: string): Promise<string> {
  await lockSlugs(db, `prompt_collections:${workspaceId}`);
  const base = slugFromName(name, 'collection');
  const taken = await promptDb(db)
    .selectFrom('prompt_collections')
    .select('slug')
    .where('workspace_id', '=', workspaceId)
    .where('slug', 'like', candidatePrefix(base))
    .execute();
  return firstFreeSlug(base, new Set(taken.map((r) => r.slug)));
}

/** 409 while the collection holds prompts or collections. */
export async function assertEmpty(db: Db, collectionId: string): Promise<void> {
  const p = promptDb(db);
  const [prompt, child] = await Promise.all([
    p.selectFrom('prompts').select('id').where('collection_id', '=', collectionId).executeTakeFirst(),
    p.selectFrom('prompt_collections').select('id').where('parent_id', '=', collectionId).executeTakeFirst(),
  ]);
  if (prompt || child)
    throw conflict('the collection is not empty: move or delete its prompts and collections first');
}
