// Tenant isolation: which workspaces a caller may see. Anything outside is "not found" (404, never
// 403), so a workspace key cannot even learn that another workspace's objects exist.
import type { Kysely, Selectable } from 'kysely';
import { invalid, notFound } from '../api-errors.js';
import type { ControlDatabase, WorkspacesTable } from '../db/schema.js';
import type { Principal } from './principal.js';

export type WorkspaceRow = Selectable<WorkspacesTable>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** The workspace named by id or slug, when the caller may see it; 404 otherwise. */
export async function visibleWorkspace(
  db: Kysely<ControlDatabase>,
  principal: Principal,
  idOrSlug: string,
): Promise<WorkspaceRow> {
  const row = await db
    .selectFrom('workspaces')
    .selectAll()
    .where('organisation_id', '=', principal.organisationId)
    .where(isUuid(idOrSlug) ? 'id' : 'slug', '=', isUuid(idOrSlug) ? idOrSlug.toLowerCase() : idOrSlug)
    .executeTakeFirst();
  if (!row || (principal.workspaceId !== null && row.id !== principal.workspaceId))
    throw notFound('workspace');
  return row;
}

/** The id of the workspace a lookup or list is narrowed to (`?workspace_id=`), 404 when not visible. */
export async function lookupWorkspace(
  db: Kysely<ControlDatabase>,
  principal: Principal,
  ref: string | undefined,
): Promise<string | undefined> {
  return ref === undefined ? undefined : (await visibleWorkspace(db, principal, ref)).id;
}

/**
 * The workspace a workspace-level request acts on: the one given (id or slug), else the caller's
 * bound workspace; organisation callers must name one.
 */
export async function targetWorkspace(
  db: Kysely<ControlDatabase>,
  principal: Principal,
  idOrSlug: string | undefined,
  param = 'workspace_id',
): Promise<WorkspaceRow> {
  if (idOrSlug !== undefined) return visibleWorkspace(db, principal, idOrSlug);
  if (principal.workspaceId !== null) return visibleWorkspace(db, principal, principal.workspaceId);
  throw invalid(`${param} is required for organisation-level callers`, param);
}

/** True when the caller may see objects of this workspace (null = organisation-level object). */
export function canSeeWorkspace(principal: Principal, workspaceId: string | null): boolean {
  if (principal.workspaceId === null) return true;
  return workspaceId === principal.workspaceId;
}
