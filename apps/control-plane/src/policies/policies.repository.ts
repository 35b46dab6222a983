// Where a policy belongs and who may see it: the owner of a new policy (organisation, optional
// workspace), references inside its conditions, and tenant-scoped lookups ("Policy not found").
import type { Kysely } from 'kysely';
import { apiError, invalid, referenceNotFound } from '../api-errors.js';
import type { Principal } from '../auth/principal.js';
import { visibleWorkspace } from '../auth/visibility.js';
import { readPage } from '../db/page-read.js';
import type { ControlDatabase } from '../db/schema.js';
import { type Page, pageBounds } from '../http/list.js';
import { WILDCARD } from './policies.conditions.js';
import {
  type PolicyCondition,
  type PolicyKind,
  type PolicyRow,
  type PolicyStatus,
  policyDb,
} from './policies.db.js';

export const policyNotFound = () => apiError('AB08', 'Policy not found');

export interface PolicyOwner {
  readonly organisationId: string;
  /** null: an organisation-level policy (only organisation-level callers make and see those). */
  readonly workspaceId: string | null;
}

/**
 * Spec 4.1: `workspace_id` and `organisation_id` are needed when not authenticating with an API key.
 * API keys imply both (a workspace key its workspace, an admin key none: organisation-level).
 */
export async function resolveOwner(
  db: Kysely<ControlDatabase>,
  principal: Principal,
  body: { workspace_id?: string | undefined; organisation_id?: string | undefined },
): Promise<PolicyOwner> {
  if (principal.via === 'jwt') {
    for (const field of ['organisation_id', 'workspace_id'] as const) {
      if (body[field] === undefined)
        throw invalid(`body.${field}: required when authenticating with a token`, `body.${field}`);
    }
  }
  if (body.organisation_id !== undefined && body.organisation_id.toLowerCase() !== principal.organisationId)
    throw referenceNotFound('organisation not found', 'body.organisation_id');
  if (body.workspace_id !== undefined) {
    const workspace = await visibleWorkspace(db, principal, body.workspace_id);
    return { organisationId: principal.organisationId, workspaceId: workspace.id };
  }
  return { organisationId: principal.organisationId, workspaceId: principal.workspaceId };
}

/**
 * Conditions as stored: `workspace_id` values become workspace ids (a slug is accepted), and must be
 * visible to the caller; a workspace policy can select only its own workspace, and
 * `organisation_id` only the policy's organisation.
 */
export async function resolveConditions(
  db: Kysely<ControlDatabase>,
  principal: Principal,
  owner: PolicyOwner,
  conditions: readonly PolicyCondition[],
): Promise<PolicyCondition[]> {
  const resolved: PolicyCondition[] = [];
  for (const [index, condition] of conditions.entries()) {
    const param = `body.conditions.${index}.value`;
    if (condition.value === WILDCARD) {
      resolved.push(condition);
    } else if (condition.key === 'organisation_id') {
      if (condition.value.toLowerCase() !== owner.organisationId)
        throw referenceNotFound('organisation not found', param);
      resolved.push({ key: condition.key, value: owner.organisationId });
    } else if (condition.key === 'workspace_id') {
      const workspace = await visibleWorkspace(db, principal, condition.value).catch((err: unknown) => {
        throw (err as { code?: unknown }).code === 'AB08'
          ? referenceNotFound('workspace not found', param)
          : err;
      });
      if (owner.workspaceId !== null && workspace.id !== owner.workspaceId)
        throw invalid(`${param}: a workspace policy can only select its own workspace`, param);
      resolved.push({ key: condition.key, value: workspace.id });
    } else {
      resolved.push(condition);
    }
  }
  return resolved;
}

/** A policy of this kind the caller may see (organisation, and workspace for bound callers). */
export async function findPolicy(
  db: Kysely<ControlDatabase>,
  principal: Principal,
  kind: PolicyKind,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<PolicyRow> {
  let query = policyDb(db)
    .selectFrom('policies')
    .selectAll()
    .where('id', '=', id.toLowerCase())
    .where('kind', '=', kind)
    .where('organisation_id', '=', principal.organisationId);
  if (principal.workspaceId !== null) query = query.where('workspace_id', '=', principal.workspaceId);
  if (options.forUpdate) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  if (!row) throw policyNotFound();
  return row;
}

export interface PolicyFilters extends Page {
  readonly workspace_id?: string | undefined;
  readonly status: PolicyStatus;
  readonly type?: string | undefined;
  readonly unit?: string | undefined;
}

export async function listPolicies(
  db: Kysely<ControlDatabase>,
  principal: Principal,
  kind: PolicyKind,
  filters: PolicyFilters,
): Promise<{ rows: PolicyRow[]; total: number }> {
  const workspaceId =
    filters.workspace_id === undefined
      ? principal.workspaceId
      : (await visibleWorkspace(db, principal, filters.workspace_id)).id;
  let query = policyDb(db)
    .selectFrom('policies')
    .where('kind', '=', kind)
    .where('organisation_id', '=', principal.organisationId)
    .where('status', '=', filters.status);
  if (workspaceId !== null) query = query.where('workspace_id', '=', workspaceId);
  if (filters.type !== undefined) query = query.where('type', '=', filters.type);
  if (filters.unit !== undefined) query = query.where('unit', '=', filters.unit);
  const { limit, offset } = pageBounds(filters);
  return readPage(db, query, (q) =>
    q.selectAll().orderBy('created_at').orderBy('id').limit(limit).offset(offset),
  );
}
