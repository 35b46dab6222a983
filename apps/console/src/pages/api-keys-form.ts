// The API keys page's pure logic: which kinds of key the caller may be offered, the list query
// from the filters, and the creation request from the form (route and body).
import { can, isOrganisationLevel, type Me } from '../api/me.js';
import { type LimitsState, limitsBody } from '../components/limits-form.js';
import { pageQuery } from '../components/paged-filters.js';
import type { KeyLevel } from '../components/scope-catalogue.js';

/** admin: POST /api-keys/organisation/service; service and user: the workspace routes. */
export type KeyKind = 'admin' | 'service' | 'user';

export const KIND_LABEL: Record<KeyKind, string> = {
  admin: 'Organisation service key (admin)',
  service: 'Workspace service key',
  user: 'Workspace user key',
};

/** The `type` of the API key object, as the list shows and filters it. */
export const TYPE_LABEL: Record<'admin' | 'workspace' | 'service', string> = {
  admin: 'admin',
  workspace: 'workspace user',
  service: 'workspace service',
};

/**
 * What the creation routes allow this caller (docs/admin-api/api-keys.md): admin keys for
 * organisation owners and admins, workspace keys for them and for managers. The API decides again.
 */
export function kindsFor(me: Pick<Me, 'workspace' | 'role' | 'scopes'>): KeyKind[] {
  if (!can(me, 'api_keys.create')) return [];
  const orgAdmin = isOrganisationLevel(me) && (me.role === 'owner' || me.role === 'admin');
  const kinds: KeyKind[] = [];
  if (orgAdmin) kinds.push('admin');
  if (orgAdmin || me.role === 'manager') kinds.push('service', 'user');
  return kinds;
}

export function levelOf(kind: KeyKind): KeyLevel {
  return kind === 'admin' ? 'organisation' : 'workspace';
}

export interface KeyFilters {
  readonly type: '' | 'admin' | 'workspace' | 'service';
  readonly status: '' | 'active' | 'disabled' | 'expired';
  readonly workspace: string;
  readonly page: number;
}

export const PAGE_SIZE = 25;

export function listQuery(filters: KeyFilters) {
  return pageQuery(PAGE_SIZE, filters.page, {
    type: filters.type,
    status: filters.status,
    workspace_id: filters.workspace,
  });
}

export interface KeyForm {
  readonly kind: KeyKind;
  readonly name: string;
  readonly description: string;
  readonly workspace: string;
  /** User keys: '' means the calling user (the API requires one when the caller is not a user). */
  readonly userId: string;
  readonly scopes: readonly string[];
  readonly limits: LimitsState;
}

export type CreatePath =
  | '/api-keys/organisation/service'
  | '/api-keys/workspace/service'
  | '/api-keys/workspace/user';

export function createRequest(form: KeyForm): { path: CreatePath; body: Record<string, unknown> } {
  const common = {
    name: form.name,
    ...(form.description.trim() ? { description: form.description } : {}),
    scopes: [...form.scopes],
    ...limitsBody(form.limits),
  };
  if (form.kind === 'admin') return { path: '/api-keys/organisation/service', body: common };
  const workspace = { ...common, workspace_id: form.workspace };
  if (form.kind === 'service') return { path: '/api-keys/workspace/service', body: workspace };
  return {
    path: '/api-keys/workspace/user',
    body: { ...workspace, ...(form.userId ? { user_id: form.userId } : {}) },
  };
}

export interface KeyEdit {
  readonly name: string;
  readonly description: string;
  readonly scopes: readonly string[];
  readonly limits: LimitsState;
}

type Limited = {
  name: string;
  description: string;
  scopes: readonly string[];
  rate_limits: readonly unknown[];
  usage_limits: readonly unknown[];
  expires_at: string | null;
};

/**
 * PUT /api-keys/{id} body: only what changed. Removing every rate or usage limit sends null (the
 * API clears them); emptying the expiry sends null (never expires; a workspace maximum refuses it).
 */
export function updateBody(key: Limited, edit: KeyEdit): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (edit.name !== key.name) body.name = edit.name;
  if (edit.description !== key.description) body.description = edit.description;
  const scopes = [...edit.scopes].sort();
  if (scopes.join(',') !== [...key.scopes].sort().join(',')) body.scopes = [...edit.scopes];
  const limits = limitsBody(edit.limits);
  const rate = limits.rate_limits ?? [];
  const usage = (limits.usage_limits ?? []) as unknown[];
  if (JSON.stringify(rate) !== JSON.stringify(key.rate_limits)) body.rate_limits = rate.length ? rate : null;
  if (!sameUsage(usage, key.usage_limits)) body.usage_limits = usage.length ? usage : null;
  const expires = limits.expires_at ?? null;
  const before = key.expires_at === null ? null : new Date(key.expires_at).toISOString();
  // datetime-local has minute precision: an untouched expiry reads back as the same minute.
  if (minute(expires) !== minute(before)) body.expires_at = expires;
  return body;
}

function minute(iso: string | null): string | null {
  return iso === null ? null : iso.slice(0, 16);
}

/** Usage limits as sent, against the stored ones (which add current_usage and nulls). */
function sameUsage(sent: readonly unknown[], stored: readonly unknown[]): boolean {
  const strip = (limit: unknown) =>
    Object.fromEntries(
      Object.entries(limit as Record<string, unknown>).filter(
        ([name, value]) => name !== 'current_usage' && value !== null && value !== undefined,
      ),
    );
  return JSON.stringify(sent.map(strip)) === JSON.stringify(stored.map(strip));
}
