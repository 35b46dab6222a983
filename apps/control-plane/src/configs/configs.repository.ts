// Config rows and their versions: lookups narrowed to what the caller may see, creation with version
// 1, updates that append a version when the config text changes, and deletes that leave a tombstone.
import { EntityKind } from '@aigw/proto';
import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import { conflict, invalid, notFound } from '../api-errors.js';
import type { Principal } from '../auth/principal.js';
import { isUuid } from '../auth/visibility.js';
import { type ConfigDatabase, type ConfigRow, type ConfigVersionRow, configDb } from '../db/configs.db.js';
import { deploymentDb } from '../db/deployments.db.js';
import type { SavedStatus } from '../db/guardrails.db.js';
import { readPage } from '../db/page-read.js';
import type { ControlDatabase } from '../db/schema.js';
import { lockSlugs } from '../db/slug-lock.js';
import { type Page, pageBounds } from '../http/list.js';
import type { MutationTx } from '../http/route.js';
import { candidatePrefix, firstFreeSlug, slugFromName } from '../http/slug.js';
import { writeTombstone } from '../tombstones/tombstones.js';
import { type ConfigSummaryRow, type ConfigVersionSummaryRow, configEntity } from './configs.entity.js';
import { type ConfigBody, sameConfigBody, sealConfigHeaders } from './configs.headers.js';

type Db = Kysely<ControlDatabase>;
type Eb = ExpressionBuilder<ConfigDatabase, 'configs'>;

export function visibleTo(principal: Principal) {
  return (eb: Eb) =>
    eb.and([
      eb('organisation_id', '=', principal.organisationId),
      ...(principal.workspaceId !== null ? [eb('workspace_id', '=', principal.workspaceId)] : []),
    ]);
}

/**
 * The config named by id or slug when the caller may see it, else 404 AB08. A slug may name configs
 * of several workspaces for an organisation-level caller: `workspaceId` then picks one.
 */
export async function findVisibleConfig(
  db: Db,
  principal: Principal,
  ref: string,
  options: { workspaceId?: string | undefined; forUpdate?: boolean } = {},
): Promise<ConfigRow> {
  let query = configDb(db).selectFrom('configs').selectAll().where(visibleTo(principal));
  if (options.workspaceId !== undefined) query = query.where('workspace_id', '=', options.workspaceId);
  query = isUuid(ref) ? query.where('id', '=', ref.toLowerCase()) : query.where('slug', '=', ref);
  if (options.forUpdate) query = query.forUpdate();
  const rows = await query.limit(2).execute();
  if (rows.length > 1) {
    throw invalid(
      `several configs have the slug "${ref}": name their workspace in workspace_id`,
      'query.workspace_id',
    );
  }
  if (!rows[0]) throw notFound('config');
  return rows[0];
}

export interface ConfigFilters extends Page {
  readonly workspaceId?: string;
  readonly status: readonly SavedStatus[];
  readonly name?: string;
}

const SUMMARY_COLUMNS = [
  'id',
  'organisation_id',
  'workspace_id',
  'name',
  'slug',
  'status',
  'config_version',
  'created_by_user_id',
  'created_by_api_key_id',
  'version',
  'created_at',
  'updated_at',
] as const;

export async function listConfigs(
  db: Db,
  principal: Principal,
  filters: ConfigFilters,
): Promise<{ rows: ConfigSummaryRow[]; total: number }> {
  let base = configDb(db)
    .selectFrom('configs')
    .where(visibleTo(principal))
    .where('status', 'in', filters.status);
  if (filters.workspaceId !== undefined) base = base.where('workspace_id', '=', filters.workspaceId);
  if (filters.name !== undefined) base = base.where('name', '=', filters.name);
  const { limit, offset } = pageBounds(filters);
  return readPage(db, base, (q) =>
    q.select(SUMMARY_COLUMNS).orderBy('created_at', 'desc').orderBy('id').limit(limit).offset(offset),
  );
}

export interface Creator {
  readonly created_by_user_id: string | null;
  readonly created_by_api_key_id: string | null;
}

export interface NewConfig {
  readonly id: string;
  readonly organisation_id: string;
  readonly workspace_id: string;
  readonly name: string;
  readonly slug: string | undefined;
  /** The text to store and the header values to seal (configs.headers.ts). */
  readonly body: ConfigBody;
  readonly guardrail_ids: string[];
}

/**
 * Inserts the config and its version 1 (header values sealed for that version); a given slug
 * already used in the workspace is 409 AB07.
 */
export async function insertConfig(
  tx: MutationTx,
  { body, ...config }: NewConfig,
  creator: Creator,
  masterKey: Buffer | null,
): Promise<ConfigRow> {
  const db = configDb(tx.db);
  await lockSlugs(tx.db, `configs:${config.workspace_id}`);
  const slug = config.slug ?? (await derivedSlug(tx.db, config.workspace_id, config.name));
  if (
    await db
      .selectFrom('configs')
      .select('id')
      .where('workspace_id', '=', config.workspace_id)
      .where('slug', '=', slug)
      .executeTakeFirst()
  ) {
    throw conflict(`a config with slug "${slug}" already exists in the workspace`, 'body.slug');
  }
  const row = await db
    .insertInto('configs')
    .values({ ...config, slug, config_version: 1, ...creator, ...sealedBody(masterKey, config.id, 1, body) })
    .returningAll()
    .executeTakeFirstOrThrow();
  await db
    .insertInto('config_versions')
    .values({ config_id: row.id, version: 1, ...storedBody(row), ...creator })
    .execute();
  await tx.change(configEntity(row));
  return row;
}

async function derivedSlug(db: Db, workspaceId: string, name: string): Promise<string> {
  const base = slugFromName(name, 'config');
  const taken = await configDb(db)
    .selectFrom('configs')
    .select('slug')
    .where('workspace_id', '=', workspaceId)
    .where('slug', 'like', candidatePrefix(base))
    .execute();
  return firstFreeSlug(base, new Set(taken.map((r) => r.slug)));
}

export interface ConfigChanges {
  readonly name?: string;
  readonly status?: SavedStatus;
  /** A new config text with its header values; ignored when equal to the latest version's. */
  readonly body?: ConfigBody;
  readonly guardrail_ids?: string[];
}

/** Applies the changes; a different text or header values append version `config_version + 1`. */
export async function updateConfig(
  tx: MutationTx,
  current: ConfigRow,
  changes: ConfigChanges,
  creator: Creator,
  masterKey: Buffer | null,
): Promise<ConfigRow> {
  const db = configDb(tx.db);
  const next = current.config_version + 1;
  const body =
    changes.body === undefined ||
    sameConfigBody(masterKey, current.id, current.config_version, current, changes.body)
      ? undefined
      : sealedBody(masterKey, current.id, next, changes.body);
  const row = await db
    .updateTable('configs')
    .set({
      ...(changes.name !== undefined ? { name: changes.name } : {}),
      ...(changes.status !== undefined ? { status: changes.status } : {}),
      ...(changes.guardrail_ids !== undefined ? { guardrail_ids: changes.guardrail_ids } : {}),
      ...(body !== undefined ? { ...body, config_version: next } : {}),
      version: sql<number>`version + 1`,
      updated_at: new Date(),
    })
    .where('id', '=', current.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  if (body !== undefined) {
    await db
      .insertInto('config_versions')
      .values({ config_id: row.id, version: row.config_version, ...storedBody(row), ...creator })
      .execute();
  }
  await tx.change(configEntity(row));
  return row;
}

/** The body columns of version `configVersion`: the text and its sealed header values. */
function sealedBody(masterKey: Buffer | null, id: string, configVersion: number, body: ConfigBody) {
  return { body: body.text, ...sealConfigHeaders(masterKey, id, configVersion, body.headers) };
}

/** A config row's latest-version columns, as its config_versions row stores them. */
function storedBody(row: ConfigRow) {
  return {
    body: row.body,
    encrypted_headers: row.encrypted_headers,
    masked_headers: row.masked_headers === null ? null : JSON.stringify(row.masked_headers),
  };
}

/** Removes the config with its versions; the tombstone makes gateways drop it. */
export async function deleteConfig(tx: MutationTx, row: ConfigRow): Promise<void> {
  await configDb(tx.db).deleteFrom('configs').where('id', '=', row.id).execute();
  await tx.change(
    await writeTombstone(tx.db, {
      kind: EntityKind.CONFIG,
      id: row.id,
      organisationId: row.organisation_id,
      workspaceId: row.workspace_id,
      lastVersion: Number(row.version),
    }),
  );
}

export async function listVersions(
  db: Db,
  configId: string,
  page: Page,
): Promise<{ rows: ConfigVersionSummaryRow[]; total: number }> {
  const base = configDb(db).selectFrom('config_versions').where('config_id', '=', configId);
  const { limit, offset } = pageBounds(page);
  return readPage(db, base, (q) =>
    q
      .select(['config_id', 'version', 'created_by_user_id', 'created_by_api_key_id', 'created_at'])
      .orderBy('version', 'desc')
      .limit(limit)
      .offset(offset),
  );
}

export async function findVersion(db: Db, configId: string, version: number): Promise<ConfigVersionRow> {
  const row = await configDb(db)
    .selectFrom('config_versions')
    .selectAll()
    .where('config_id', '=', configId)
    .where('version', '=', version)
    .executeTakeFirst();
  if (!row) throw notFound('config version');
  return row;
}

/** Slugs of the deployments that run a config (a config they run cannot be deleted). */
export async function deploymentsRunning(db: Db, configId: string): Promise<string[]> {
  const rows = await deploymentDb(db)
    .selectFrom('deployments')
    .select('slug')
    .where('config_id', '=', configId)
    .orderBy('slug')
    .execute();
  return rows.map((r) => r.slug);
}
