// Deployment rows: lookups narrowed to what the caller may see, the config they point at checked
// to be an active saved config of the same workspace, and deletes that leave a tombstone.
import { EntityKind } from '@aigw/proto';
import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import { conflict, notFound, referenceNotFound } from '../api-errors.js';
import type { Principal } from '../auth/principal.js';
import { isUuid } from '../auth/visibility.js';
import type { Creator } from '../configs/configs.repository.js';
import {
  type DeploymentDatabase,
  type DeploymentRow,
  type DeploymentType,
  deploymentDb,
} from '../db/deployments.db.js';
import type { SavedStatus } from '../db/guardrails.db.js';
import { readPage } from '../db/page-read.js';
import type { ControlDatabase } from '../db/schema.js';
import { lockSlugs } from '../db/slug-lock.js';
import { type Page, pageBounds } from '../http/list.js';
import type { MutationTx } from '../http/route.js';
import { candidatePrefix, firstFreeSlug, slugFromName } from '../http/slug.js';
import { writeTombstone } from '../tombstones/tombstones.js';
import { deploymentEntity } from './deployments.entity.js';

type Db = Kysely<ControlDatabase>;
type Eb = ExpressionBuilder<DeploymentDatabase, 'deployments'>;

function visibleTo(principal: Principal) {
  return (eb: Eb) =>
    eb.and([
      eb('organisation_id', '=', principal.organisationId),
      ...(principal.workspaceId !== null ? [eb('workspace_id', '=', principal.workspaceId)] : []),
    ]);
}

/** The deployment named by id or slug when the caller may see it, else 404 AB08. */
export async function findVisibleDeployment(
  db: Db,
  principal: Principal,
  ref: string,
  options: { workspaceId?: string | undefined; forUpdate?: boolean } = {},
): Promise<DeploymentRow> {
  let query = deploymentDb(db).selectFrom('deployments').selectAll().where(visibleTo(principal));
  if (options.workspaceId !== undefined) query = query.where('workspace_id', '=', options.workspaceId);
  query = isUuid(ref) ? query.where('id', '=', ref.toLowerCase()) : query.where('slug', '=', ref);
  if (options.forUpdate) query = query.forUpdate();
  const rows = await query.limit(2).execute();
  if (rows.length > 1) {
    throw conflict(
      `several deployments have the slug "${ref}": name their workspace in workspace_id`,
      'query.workspace_id',
    );
  }
  if (!rows[0]) throw notFound('deployment');
  return rows[0];
}

/**
 * The id of the saved config a deployment of `workspaceId` may run: by id or slug, in that workspace
 * and active (a config of another workspace reads as missing, as everywhere else): 404 AB02.
 */
export async function deployableConfig(db: Db, workspaceId: string, ref: string): Promise<string> {
  let query = deploymentDb(db)
    .selectFrom('configs')
    .select(['id', 'status'])
    .where('workspace_id', '=', workspaceId);
  query = isUuid(ref) ? query.where('id', '=', ref.toLowerCase()) : query.where('slug', '=', ref);
  const row = await query.forShare().executeTakeFirst();
  if (row?.status !== 'active') {
    throw referenceNotFound(
      `no active saved config "${ref}" in the deployment's workspace`,
      'body.config_id',
    );
  }
  return row.id;
}

export interface DeploymentFilters extends Page {
  readonly workspaceId?: string;
  readonly status: readonly SavedStatus[];
  readonly type?: readonly DeploymentType[];
  readonly name?: string;
}

export async function listDeployments(
  db: Db,
  principal: Principal,
  filters: DeploymentFilters,
): Promise<{ rows: DeploymentRow[]; total: number }> {
  let base = deploymentDb(db)
    .selectFrom('deployments')
    .where(visibleTo(principal))
    .where('status', 'in', filters.status);
  if (filters.workspaceId !== undefined) base = base.where('workspace_id', '=', filters.workspaceId);
  if (filters.type !== undefined) base = base.where('type', 'in', filters.type);
  if (filters.name !== undefined) base = base.where('name', '=', filters.name);
  const { limit, offset } = pageBounds(filters);
  return readPage(db, base, (q) =>
    q.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(limit).offset(offset),
  );
}

export interface NewDeployment {
  readonly id: string;
  readonly organisation_id: string;
  readonly workspace_id: string;
  readonly name: string;
  readonly slug: string | undefined;
  readonly description: string | null;
  readonly type: DeploymentType;
  readonly config_id: string;
}

/** Inserts the deployment; a given slug already used in the workspace is 409 AB07. */
export async function insertDeployment(
  tx: MutationTx,
  deployment: NewDeployment,
  creator: Creator,
): Promise<DeploymentRow> {
  const db = deploymentDb(tx.db);
  await lockSlugs(tx.db, `deployments:${deployment.workspace_id}`);
  const slug = deployment.slug ?? (await derivedSlug(tx.db, deployment.workspace_id, deployment.name));
  const taken = await db
    .selectFrom('deployments')
    .select('id')
    .where('workspace_id', '=', deployment.workspace_id)
    .where('slug', '=', slug)
    .executeTakeFirst();
  if (taken) throw conflict(`a deployment with slug "${slug}" already exists in the workspace`, 'body.slug');
  const row = await db
    .insertInto('deployments')
    .values({ ...deployment, slug, ...creator })
    .returningAll()
    .executeTakeFirstOrThrow();
  await tx.change(deploymentEntity(row));
  return row;
}

async function derivedSlug(db: Db, workspaceId: string, name: string): Promise<string> {
  const base = slugFromName(name, 'deployment');
  const taken = await deploymentDb(db)
    .selectFrom('deployments')
    .select('slug')
    .where('workspace_id', '=', workspaceId)
    .where('slug', 'like', candidatePrefix(base))
    .execute();
  return firstFreeSlug(base, new Set(taken.map((r) => r.slug)));
}

export interface DeploymentChanges {
  readonly name?: string;
  readonly description?: string | null;
  readonly type?: DeploymentType;
  readonly config_id?: string;
  readonly status?: SavedStatus;
}

export async function updateDeployment(
  tx: MutationTx,
  current: DeploymentRow,
  changes: DeploymentChanges,
): Promise<DeploymentRow> {
  const row = await deploymentDb(tx.db)
    .updateTable('deployments')
    .set({ ...changes, version: sql<number>`version + 1`, updated_at: new Date() })
    .where('id', '=', current.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await tx.change(deploymentEntity(row));
  return row;
}

/** Removes the deployment; the tombstone makes gateways drop it. */
export async function deleteDeployment(tx: MutationTx, row: DeploymentRow): Promise<void> {
  await deploymentDb(tx.db).deleteFrom('deployments').where('id', '=', row.id).execute();
  await tx.change(
    await writeTombstone(tx.db, {
      kind: EntityKind.DEPLOYMENT,
      id: row.id,
      organisationId: row.organisation_id,
      workspaceId: row.workspace_id,
      lastVersion: Number(row.version),
    }),
  );
}
