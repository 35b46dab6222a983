// CallerContext applied before any filter, failing closed: no organisation is an error, an empty
// workspace or API key list sees nothing (null conditions mean "no rows", so callers skip the query).
import type { CallerContext } from '@aigw/proto';
import { sql } from 'kysely';
import { invalidArgument } from './query-error.js';
import { anyOf, type Condition, col } from './sql-parts.js';

export interface ScopeColumns {
  readonly organisation: string;
  readonly workspace: string;
  /** Absent on tables without an API key (audit records): restrict_to_api_keys does not apply. */
  readonly apiKey?: string;
}

export const LOG_SCOPE: ScopeColumns = {
  organisation: 'organisation_id',
  workspace: 'workspace_id',
  apiKey: 'api_key_id',
};

/** The caller's organisation, required on every request. */
export function requireCaller(caller: CallerContext | undefined): CallerContext {
  if (!caller || caller.organisationId.trim() === '')
    throw invalidArgument('caller.organisation_id is required');
  return caller;
}

/** Conditions restricting `alias` to what the caller may see; null when it may see nothing. */
export function scopeConditions(
  caller: CallerContext | undefined,
  alias: string,
  columns: ScopeColumns = LOG_SCOPE,
): Condition[] | null {
  const c = requireCaller(caller);
  const conditions: Condition[] = [sql`${col(alias, columns.organisation)} = ${c.organisationId}`];
  if (!c.allWorkspaces) {
    if (c.workspaceIds.length === 0) return null;
    conditions.push(anyOf(col(alias, columns.workspace), c.workspaceIds, 'text'));
  }
  if (columns.apiKey && c.restrictToApiKeys) {
    if (c.restrictToApiKeyIds.length === 0) return null;
    conditions.push(anyOf(col(alias, columns.apiKey), c.restrictToApiKeyIds, 'text'));
  }
  return conditions;
}

/** True when the caller may see rows of this workspace (null: organisation-level rows). */
export function canSeeWorkspace(caller: CallerContext, workspaceId: string | null): boolean {
  if (caller.allWorkspaces) return true;
  return workspaceId !== null && caller.workspaceIds.includes(workspaceId);
}
