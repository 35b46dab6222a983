// Prompt and partial rows (one table, `kind`) with their versions and labels: lookups narrowed to
// what the caller may see, creation with version 1 (published), new versions or in-place patches,
// publishing, label moves and deletes. Every write bumps the entity version and records the change.
import { templateRefs } from '@aigw/prompt-template';
import { EntityKind } from '@aigw/proto';
import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import { conflict, invalid, notFound, referenceNotFound } from '../api-errors.js';
import type { Principal } from '../auth/principal.js';
import { isUuid } from '../auth/visibility.js';
import type { SavedStatus } from '../db/guardrails.db.js';
import { readPage } from '../db/page-read.js';
import type { ControlDatabase } from '../db/schema.js';
import { lockSlugs } from '../db/slug-lock.js';
import { type Page, pageBounds } from '../http/list.js';
import type { MutationTx } from '../http/route.js';
import { candidatePrefix, firstFreeSlug, slugFromName } from '../http/slug.js';
import { writeTombstone } from '../tombstones/tombstones.js';
import {
  type PromptDatabase,
  type PromptKind,
  type PromptRow,
  type PromptVersionRow,
  promptDb,
} from './prompts.db.js';
import { promptEntity } from './prompts.entity.js';

type Db = Kysely<ControlDatabase>;

export const KIND_NAME: Record<PromptKind, string> = { prompt: 'prompt', partial: 'prompt partial' };

export function visibleTo(principal: Principal) {
  return (eb: ExpressionBuilder<PromptDatabase, 'prompts'>) =>
    eb.and([
      eb('organisation_id', '=', principal.organisationId),
      ...(principal.workspaceId !== null ? [eb('workspace_id', '=', principal.workspaceId)] : []),
    ]);
}

/** The prompt (or partial) named by id or slug when the caller may see it, else 404 AB08. */
export async function findVisiblePrompt(
  db: Db,
  principal: Principal,
  kind: PromptKind,
  ref: string,
  options: { workspaceId?: string | undefined; forUpdate?: boolean } = {},
): Promise<PromptRow> {
  let query = promptDb(db)
    .selectFrom('prompts')
    .selectAll()
    .where(visibleTo(principal))
    .where('kind', '=', kind);
  if (options.workspaceId !== undefined) query = query.where('workspace_id', '=', options.workspaceId);
  query = isUuid(ref) ? query.where('id', '=', ref.toLowerCase()) : query.where('slug', '=', ref);
  if (options.forUpdate) query = query.forUpdate();
  const rows = await query.limit(2).execute();
  if (rows.length > 1) {
    throw invalid(
      `several ${KIND_NAME[kind]}s have the slug "${ref}": name their workspace in workspace_id`,
      'query.workspace_id',
    );
  }
  if (!rows[0]) throw notFound(KIND_NAME[kind]);
  return rows[0];
}

export interface PromptFilters extends Page {
  readonly workspaceId?: string | undefined;
  readonly collectionId?: string | undefined;
  readonly status: readonly SavedStatus[];
  readonly name?: string | undefined;
}

export async function listPrompts(
  db: Db,
  principal: Principal,
  kind: PromptKind,
  filters: PromptFilters,
): Promise<{ rows: PromptRow[]; total: number }> {
  let base = promptDb(db)
    .selectFrom('prompts')
    .where(visibleTo(principal))
    .where('kind', '=', kind)
    .where('status', 'in', filters.status);
  if (filters.workspaceId !== undefined) base = base.where('workspace_id', '=', filters.workspaceId);
  if (filters.collectionId !== undefined) base = base.where('collection_id', '=', filters.collectionId);
  if (filters.name !== undefined) base = base.where('name', '=', filters.name);
  const { limit, offset } = pageBounds(filters);
  return readPage(db, base, (q) =>
    q.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(limit).offset(offset),
  );
}

export interface Creator {
  readonly created_by_user_id: string | null;
  readonly created_by_api_key_id: string | null;
}

/** The fields of one version (`string` is the template). */
export interface VersionFields {
  readonly string?: string | undefined;
  readonly model?: string | undefined;
  readonly provider?: string | undefined;
  readonly parameters?: Record<string, unknown> | undefined;
  readonly variables?: Record<string, unknown> | undefined;
  readonly metadata?: Record<string, unknown> | undefined;
  readonly version_description?: string | undefined;
}

function versionValues(fields: VersionFields & { string: string }) {
  return {
    template: fields.string,
    model: fields.model ?? null,
    provider: fields.provider ?? null,
    parameters: JSON.stringify(fields.parameters ?? {}),
    variables: JSON.stringify(fields.variables ?? {}),
    metadata: JSON.stringify(fields.metadata ?? {}),
    description: fields.version_description ?? null,
  };
}

export interface NewPrompt {
  readonly id: string;
  readonly kind: PromptKind;
  readonly organisation_id: string;
  readonly workspace_id: string;
  readonly collection_id: string | null;
  readonly name: string;
  readonly slug: string | undefined;
}

/** Inserts the prompt and its version 1 (published); a slug already used in the workspace is 409. */
export async function insertPrompt(
  tx: MutationTx,
  prompt: NewPrompt,
  fields: VersionFields & { string: string },
  creator: Creator,
): Promise<PromptRow> {
  const db = promptDb(tx.db);
  await lockSlugs(tx.db, `prompts:${prompt.kind}:${prompt.workspace_id}`);
  const slug = prompt.slug ?? (await derivedSlug(tx.db, prompt));
  const taken = await db
    .selectFrom('prompts')
    .select('id')
    .where('workspace_id', '=', prompt.workspace_id)
    .where('kind', '=', prompt.kind)
    .where('slug', '=', slug)
    .executeTakeFirst();
  if (taken)
    throw conflict(
      `a ${KIND_NAME[prompt.kind]} with slug "${slug}" already exists in the workspace`,
      'body.slug',
    );
  const row = await db
    .insertInto('prompts')
    .values({ ...prompt, slug, latest_version: 1, default_version: 1, ...creator })
    .returningAll()
    .executeTakeFirstOrThrow();
  await db
    .insertInto('prompt_versions')
    .values({ prompt_id: row.id, version: 1, ...versionValues(fields), ...creator })
    .execute();
  await tx.change(await promptEntity(tx.db, row));
  return row;
}

async function derivedSlug(db: Db, prompt: NewPrompt): Promise<string> {
  const base = slugFromName(prompt.name, prompt.kind === 'prompt' ? 'prompt' : 'partial');
  const taken = await promptDb(db)
    .selectFrom('prompts')
    .select('slug')
    .where('workspace_id', '=', prompt.workspace_id)
    .where('kind', '=', prompt.kind)
    .where('slug', 'like', candidatePrefix(base))
    .execute();
  return firstFreeSlug(base, new Set(taken.map((r) => r.slug)));
}

export async function findVersion(db: Db, promptId: string, version: number): Promise<PromptVersionRow> {
  const row = await promptDb(db)
    .selectFrom('prompt_versions')
    .selectAll()
    .where('prompt_id', '=', promptId)
    .where('version', '=', version)
    .executeTakeFirst();
  if (!row) throw notFound('prompt version');
  return row;
}

export interface PromptChanges {
  readonly name?: string | undefined;
  readonly status?: SavedStatus | undefined;
  /** undefined: unchanged; null: out of any collection. */
  readonly collection_id?: string | null | undefined;
  readonly default_version?: number | undefined;
}

/** Applies prompt-level changes (and a new latest version number), bumps the entity, records it. */
export async function touchPrompt(
  tx: MutationTx,
  current: PromptRow,
  changes: PromptChanges & { latest_version?: number },
): Promise<PromptRow> {
  const row = await promptDb(tx.db)
    .updateTable('prompts')
    .set({
      ...(changes.name !== undefined ? { name: changes.name } : {}),
      ...(changes.status !== undefined ? { status: changes.status } : {}),
      ...(changes.collection_id !== undefined ? { collection_id: changes.collection_id } : {}),
      ...(changes.default_version !== undefined ? { default_version: changes.default_version } : {}),
      ...(changes.latest_version !== undefined ? { latest_version: changes.latest_version } : {}),
      version: sql<number>`version + 1`,
      updated_at: new Date(),
    })
    .where('id', '=', current.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await tx.change(await promptEntity(tx.db, row));
  return row;
}

/** Appends version `latest + 1` made of `fields` only (spec 4.5: without `patch`, nothing is filled in). */
export async function appendVersion(
  tx: MutationTx,
  current: PromptRow,
  fields: VersionFields & { string: string },
  creator: Creator,
): Promise<number> {
  const version = current.latest_version + 1;
  await promptDb(tx.db)
    .insertInto('prompt_versions')
    .values({ prompt_id: current.id, version, ...versionValues(fields), ...creator })
    .execute();
  return version;
}

/** Changes the latest version in place: given fields replace, missing ones are kept (spec 4.5 `patch`). */
export async function patchLatestVersion(
  tx: MutationTx,
  current: PromptRow,
  fields: VersionFields,
): Promise<void> {
  await promptDb(tx.db)
    .updateTable('prompt_versions')
    .set({
      ...(fields.string !== undefined ? { template: fields.string } : {}),
      ...(fields.model !== undefined ? { model: fields.model } : {}),
      ...(fields.provider !== undefined ? { provider: fields.provider } : {}),
      ...(fields.parameters !== undefined ? { parameters: JSON.stringify(fields.parameters) } : {}),
      ...(fields.variables !== undefined ? { variables: JSON.stringify(fields.variables) } : {}),
      ...(fields.metadata !== undefined ? { metadata: JSON.stringify(fields.metadata) } : {}),
      ...(fields.version_description !== undefined ? { description: fields.version_description } : {}),
      updated_at: new Date(),
    })
    .where('prompt_id', '=', current.id)
    .where('version', '=', current.latest_version)
    .execute();
}

/** Removes the prompt with its versions and labels; the tombstone makes gateways drop it. */
export async function deletePrompt(tx: MutationTx, row: PromptRow): Promise<void> {
  await promptDb(tx.db).deleteFrom('prompts').where('id', '=', row.id).execute();
  await tx.change(
    await writeTombstone(tx.db, {
      kind: row.kind === 'prompt' ? EntityKind.PROMPT : EntityKind.PROMPT_PARTIAL,
      id: row.id,
      organisationId: row.organisation_id,
      workspaceId: row.workspace_id,
      lastVersion: Number(row.version),
    }),
  );
}

export async function listVersions(
  db: Db,
  promptId: string,
  page: Page,
): Promise<{ rows: PromptVersionRow[]; total: number }> {
  const base = promptDb(db).selectFrom('prompt_versions').where('prompt_id', '=', promptId);
  const { limit, offset } = pageBounds(page);
  return readPage(db, base, (q) => q.selectAll().orderBy('version', 'desc').limit(limit).offset(offset));
}

/** The label of the prompt's workspace named by id or name (404 AB02 when there is none). */
export async function workspaceLabel(db: Db, workspaceId: string, ref: string) {
  const label = await promptDb(db)
    .selectFrom('prompt_labels')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where(isUuid(ref) ? 'id' : 'name', '=', isUuid(ref) ? ref.toLowerCase() : ref)
    .executeTakeFirst();
  if (!label)
    throw referenceNotFound(`no label "${ref}" in the workspace: create it with POST /labels`, 'path.label');
  return label;
}

/** Points the label at `version` (moving it if it pointed elsewhere). */
export async function setLabel(
  tx: MutationTx,
  promptId: string,
  labelId: string,
  version: number,
): Promise<void> {
  await promptDb(tx.db)
    .insertInto('prompt_version_labels')
    .values({ prompt_id: promptId, label_id: labelId, version })
    .onConflict((oc) =>
      oc.columns(['prompt_id', 'label_id']).doUpdateSet({ version, updated_at: new Date() }),
    )
    .execute();
}

/** Removes the label from the prompt; false when it was not set. */
export async function removeLabel(tx: MutationTx, promptId: string, labelId: string): Promise<boolean> {
  const result = await promptDb(tx.db)
    .deleteFrom('prompt_version_labels')
    .where('prompt_id', '=', promptId)
    .where('label_id', '=', labelId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * Slugs of the prompts and partials of the workspace that include the partial `slug` in any of their
 * versions (a partial they include cannot be deleted: those versions would stop rendering).
 */
export async function includersOf(
  db: Db,
  workspaceId: string,
  partialSlug: string,
  except: string,
): Promise<string[]> {
  const rows = await promptDb(db)
    .selectFrom('prompt_versions as v')
    .innerJoin('prompts as p', 'p.id', 'v.prompt_id')
    .select(['p.slug', 'p.kind', 'v.template'])
    .where('p.workspace_id', '=', workspaceId)
    .where('p.id', '!=', except)
    // A cheap filter first; the template parser decides.
    .where('v.template', 'like', `%${partialSlug.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)
    .execute();
  const found = new Set<string>();
  for (const row of rows) {
    try {
      if (templateRefs(row.template).partials.has(partialSlug)) found.add(`${row.kind} ${row.slug}`);
    } catch {
      // A version that does not parse includes nothing (it could not have been saved).
    }
  }
  return [...found].sort();
}
