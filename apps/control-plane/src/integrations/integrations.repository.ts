// Integration queries, always inside the caller's organisation, and the per-workspace entries
// (resolution of ids or slugs, and merging a bulk update into the stored list).
import { AppError } from '@aigw/runtime';
import { type Kysely, type SqlBool, sql } from 'kysely';
import { conflict, invalid, notFound, referenceNotFound } from '../api-errors.js';
import type { Principal } from '../auth/principal.js';
import { isUuid, visibleWorkspace } from '../auth/visibility.js';
import { readPage } from '../db/page-read.js';
import type { ControlDatabase, IntegrationWorkspaceEntry } from '../db/schema.js';
import { pageBounds } from '../http/list.js';
import { type IntegrationRow, workspaceMayUse } from './integrations.entity.js';
import type { ListIntegrationsQuery, WorkspaceEntryInput } from './integrations.schema.js';
import { tagsContain } from './tags.js';

type Db = Kysely<ControlDatabase>;

/** A lookup that may miss: 404s become undefined, every other failure still throws. */
async function unlessNotFound<T>(lookup: Promise<T>): Promise<T | undefined> {
  try {
    return await lookup;
  } catch (err) {
    if (err instanceof AppError && err.status === 404) return undefined;
    throw err;
  }
}

/** The organisation's integration by id or slug, else 404 AB08. */
export async function findIntegration(
  db: Db,
  principal: Principal,
  idOrSlug: string,
  options: { forUpdate?: boolean } = {},
): Promise<IntegrationRow> {
  if (!isUuid(principal.organisationId)) throw notFound('integration');
  const byId = isUuid(idOrSlug);
  let query = db
    .selectFrom('integrations')
    .selectAll()
    .where('organisation_id', '=', principal.organisationId.toLowerCase())
    .where(byId ? 'id' : 'slug', '=', byId ? idOrSlug.toLowerCase() : idOrSlug);
  if (options.forUpdate) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  if (!row) throw notFound('integration');
  return row;
}

/** Integrations the workspace may use: an enabled entry, or all-workspaces access without a disabled one. */
function usableBy(workspaceId: string) {
  const enabled = JSON.stringify([{ workspace_id: workspaceId, enabled: true }]);
  const named = JSON.stringify([{ workspace_id: workspaceId }]);
  return sql<SqlBool>`(${sql.ref('workspaces')} @> ${enabled}::jsonb
    or (${sql.ref('allow_all_workspaces')} and not ${sql.ref('workspaces')} @> ${named}::jsonb))`;
}

export async function listIntegrations(
  db: Db,
  principal: Principal,
  query: ListIntegrationsQuery,
  workspaceId: string | undefined,
): Promise<{ rows: IntegrationRow[]; total: number }> {
  let base = db.selectFrom('integrations').where('organisation_id', '=', principal.organisationId);
  if (query.ai_provider) base = base.where('ai_provider', 'in', query.ai_provider);
  if (query.status) base = base.where('status', 'in', query.status);
  if (query.tags) base = base.where(tagsContain(query.tags));
  if (workspaceId !== undefined) base = base.where(usableBy(workspaceId));
  const { limit, offset } = pageBounds(query);
  return readPage(db, base, (q) =>
    q.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(limit).offset(offset),
  );
}

/**
 * The integration a provider in `workspaceId` is made from: it must exist in the organisation and be
 * usable by that workspace, else 404 AB02 on `param`.
 */
export async function usableIntegration(
  db: Db,
  principal: Principal,
  workspaceId: string,
  idOrSlug: string,
  param: string,
  options: { forUpdate?: boolean } = {},
): Promise<IntegrationRow> {
  const row = await unlessNotFound(findIntegration(db, principal, idOrSlug, options));
  if (!row) throw referenceNotFound('integration not found', param);
  if (!workspaceMayUse(row, workspaceId)) {
    throw referenceNotFound('the integration is not enabled for this workspace', param);
  }
  return row;
}

/** A bulk-update entry with its workspace resolved; unset fields keep the stored values. */
export interface ResolvedEntry {
  readonly workspace_id: string;
  readonly enabled: boolean | undefined;
  readonly rate_limits: unknown[] | null | undefined;
  readonly usage_limits: unknown[] | null | undefined;
}

/** Resolves ids or slugs: unknown workspaces are 404 AB02, archived ones 409, repeats 400. */
export async function resolveEntries(
  db: Db,
  principal: Principal,
  entries: readonly WorkspaceEntryInput[],
  param: string,
): Promise<ResolvedEntry[]> {
  const resolved: ResolvedEntry[] = [];
  for (const [index, entry] of entries.entries()) {
    const at = `${param}.${index}.id`;
    const workspace = await unlessNotFound(visibleWorkspace(db, principal, entry.id));
    if (!workspace) throw referenceNotFound('workspace not found', at);
    if (workspace.status === 'archived') throw conflict('the workspace is archived', at);
    if (resolved.some((r) => r.workspace_id === workspace.id))
      throw invalid(`${at}: workspace named twice`, at);
    resolved.push({
      workspace_id: workspace.id,
      enabled: entry.enabled,
      rate_limits: entry.rate_limits,
      usage_limits: entry.usage_limits,
    });
  }
  return resolved;
}

/** The stored list after a bulk update: named entries replaced field by field, others untouched. */
export function mergeEntries(
  current: readonly IntegrationWorkspaceEntry[],
  updates: readonly ResolvedEntry[],
): IntegrationWorkspaceEntry[] {
  const next = current.map((entry) => ({ ...entry }));
  for (const update of updates) {
    const existing = next.find((e) => e.workspace_id === update.workspace_id);
    const merged: IntegrationWorkspaceEntry = {
      workspace_id: update.workspace_id,
      enabled: update.enabled ?? existing?.enabled ?? true,
      rate_limits:
        update.rate_limits === undefined ? (existing?.rate_limits ?? []) : (update.rate_limits ?? []),
      usage_limits:
        update.usage_limits === undefined ? (existing?.usage_limits ?? []) : (update.usage_limits ?? []),
    };
    if (existing) Object.assign(existing, merged);
    else next.push(merged);
  }
  return next;
}
