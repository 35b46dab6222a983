// The providers page's pure logic: create and update requests of a workspace provider from the
// form (docs/admin-api/integrations.md#providers). Limits and expiry as for API keys.
import { type LimitsState, limitsBody, limitsState, NO_LIMITS } from '../components/limits-form.js';
import { parseModels } from './integrations-form.js';

export interface ProviderForm {
  readonly workspace: string;
  readonly integration: string;
  readonly name: string;
  readonly slug: string;
  readonly note: string;
  readonly allowedModels: string;
  readonly status: 'active' | 'disabled';
  readonly limits: LimitsState;
}

export function emptyProviderForm(workspace: string): ProviderForm {
  return {
    workspace,
    integration: '',
    name: '',
    slug: '',
    note: '',
    allowedModels: '',
    status: 'active',
    limits: NO_LIMITS,
  };
}

export function createProviderBody(form: ProviderForm): Record<string, unknown> {
  const models = parseModels(form.allowedModels);
  return {
    ...(form.workspace ? { workspace_id: form.workspace } : {}),
    integration_id: form.integration,
    ...(form.name.trim() ? { name: form.name.trim() } : {}),
    ...(form.slug.trim() ? { slug: form.slug.trim() } : {}),
    ...(form.note.trim() ? { note: form.note } : {}),
    ...(models.length ? { allowed_models: models } : {}),
    ...limitsBody(form.limits),
  };
}

export interface ProviderLike {
  readonly workspace_id: string;
  readonly integration_id: string | null;
  readonly name: string;
  readonly slug: string;
  readonly note: string;
  readonly status: string;
  readonly allowed_models: readonly string[];
  readonly rate_limits: Parameters<typeof limitsState>[0]['rate_limits'];
  readonly usage_limits: Parameters<typeof limitsState>[0]['usage_limits'];
  readonly expires_at: string | null;
}

export function providerEditForm(p: ProviderLike): ProviderForm {
  return {
    workspace: p.workspace_id,
    integration: p.integration_id ?? '',
    name: p.name,
    slug: p.slug,
    note: p.note,
    allowedModels: p.allowed_models.join('\n'),
    status: p.status === 'disabled' ? 'disabled' : 'active',
    limits: limitsState(p),
  };
}

/** PUT /providers/{id}: what changed; removed limits and expiry are cleared with null. */
export function updateProviderBody(p: ProviderLike, form: ProviderForm): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (form.name !== p.name) body.name = form.name;
  if (form.slug.trim() !== p.slug) body.slug = form.slug.trim();
  if (form.note !== p.note) body.note = form.note;
  const wasDisabled = p.status === 'disabled';
  if ((form.status === 'disabled') !== wasDisabled) body.status = form.status;
  const models = parseModels(form.allowedModels);
  if (models.join('\n') !== p.allowed_models.join('\n')) body.allowed_models = models;
  // Both sides go through the form (minute precision for the expiry), so untouched values compare equal.
  const was = limitsBody(limitsState(p));
  const now = limitsBody(form.limits);
  if (JSON.stringify(now.rate_limits ?? []) !== JSON.stringify(was.rate_limits ?? []))
    body.rate_limits = now.rate_limits ?? null;
  if (JSON.stringify(now.usage_limits ?? []) !== JSON.stringify(was.usage_limits ?? []))
    body.usage_limits = now.usage_limits ?? null;
  if ((now.expires_at ?? null) !== (was.expires_at ?? null)) body.expires_at = now.expires_at ?? null;
  return body;
}
