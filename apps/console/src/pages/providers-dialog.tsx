// Creating or editing a workspace provider: the workspace and the integration it is made from
// (fixed once created), name, slug (`@slug` in requests), note, allowed models, limits, expiry and
// status. The API checks that the integration is enabled for the workspace; errors by their field.
import { useState } from 'preact/hooks';
import { type ApiPaths, unwrap } from '../api/client.js';
import { can } from '../api/me.js';
import { DialogActions, useSubmit } from '../components/dialog-form.js';
import { FieldError, invalidProps } from '../components/field-error.js';
import { LimitsFields } from '../components/limits-fields.js';
import { ModalDialog } from '../components/modal-dialog.js';
import { useApi } from '../components/use-api.js';
import { WorkspaceSelect } from '../components/workspace-select.js';
import { useConsole } from '../context.js';
import {
  createProviderBody,
  emptyProviderForm,
  type ProviderForm,
  providerEditForm,
  updateProviderBody,
} from './providers-form.js';

export type Provider =
  ApiPaths['/providers/{providerId}']['get']['responses']['200']['content']['application/json'];

const PLACED = [
  'body.workspace_id',
  'body.integration_id',
  'body.name',
  'body.slug',
  'body.note',
  'body.allowed_models',
  'body.rate_limits',
  'body.usage_limits',
  'body.expires_at',
];

export function ProviderDialog(props: { existing?: Provider; onClose(changed: boolean): void }) {
  const { api, me } = useConsole();
  const existing = props.existing;
  const [form, setForm] = useState<ProviderForm>(() =>
    existing ? providerEditForm(existing) : emptyProviderForm(me.workspace?.id ?? ''),
  );
  const set = (patch: Partial<ProviderForm>) => setForm((f) => ({ ...f, ...patch }));
  const submitting = useSubmit(async () => {
    if (existing) {
      const body = updateProviderBody(existing, form);
      if (Object.keys(body).length > 0)
        unwrap(
          await api.PUT('/providers/{providerId}', {
            params: { path: { providerId: existing.id } },
            body: body as never,
          }),
        );
    } else {
      unwrap(await api.POST('/providers', { body: createProviderBody(form) as never }));
    }
    props.onClose(true);
  });
  const { error, submit } = submitting;
  return (
    <ModalDialog
      title={existing ? `Edit provider "@${existing.slug}"` : 'Create a provider'}
      onClose={() => props.onClose(false)}
      wide
      testId="provider-dialog"
    >
      <form onSubmit={submit}>
        {existing ? null : (
          <div class="grid">
            <div>
              <WorkspaceSelect
                label="Workspace"
                value={form.workspace}
                onChange={(workspace) => set({ workspace, integration: '' })}
                invalid={invalidProps(error, 'body.workspace_id', 'provider-workspace-error')}
              />
              <FieldError error={error} field="body.workspace_id" id="provider-workspace-error" />
            </div>
            <div>
              <IntegrationField
                workspace={form.workspace}
                value={form.integration}
                onChange={(integration) => set({ integration })}
                error={error}
              />
            </div>
          </div>
        )}
        <div class="grid">
          <label>
            Name <small class="muted">{existing ? '' : "(optional: the integration's)"}</small>
            <input value={form.name} onInput={(e) => set({ name: (e.target as HTMLInputElement).value })} />
            <FieldError error={error} field="body.name" id="provider-name-error" />
          </label>
          <label>
            Slug{' '}
            <small class="muted">(requests use @slug{existing ? '' : "; optional: the integration's"})</small>
            <input
              value={form.slug}
              onInput={(e) => set({ slug: (e.target as HTMLInputElement).value })}
              {...invalidProps(error, 'body.slug', 'provider-slug-error')}
            />
            <FieldError error={error} field="body.slug" id="provider-slug-error" />
          </label>
        </div>
        <label>
          Note <small class="muted">(optional)</small>
          <input value={form.note} onInput={(e) => set({ note: (e.target as HTMLInputElement).value })} />
        </label>
        {existing ? (
          <label>
            <input
              type="checkbox"
              role="switch"
              aria-checked={form.status === 'active'}
              checked={form.status === 'active'}
              onChange={(e) =>
                set({ status: (e.target as HTMLInputElement).checked ? 'active' : 'disabled' })
              }
            />
            Active (gateways refuse a disabled provider)
          </label>
        ) : null}
        <label>
          Allowed models <small class="muted">(one per line; empty: what the integration allows)</small>
          <textarea
            rows={2}
            value={form.allowedModels}
            onInput={(e) => set({ allowedModels: (e.target as HTMLTextAreaElement).value })}
          />
          <FieldError error={error} field="body.allowed_models" id="provider-models-error" />
        </label>
        <details>
          <summary>Limits and expiry</summary>
          <LimitsFields value={form.limits} onChange={(limits) => set({ limits })} error={error} />
        </details>
        <DialogActions
          submitting={submitting}
          placed={PLACED}
          submitLabel={existing ? 'Save' : 'Create provider'}
          onCancel={() => props.onClose(false)}
        />
      </form>
    </ModalDialog>
  );
}

/** The integration a provider is made from: the ones the workspace may use, or an id/slug typed. */
function IntegrationField(props: {
  workspace: string;
  value: string;
  onChange(v: string): void;
  error: unknown;
}) {
  const { api, me } = useConsole();
  // Integrations are organisation-level: workspace-bound callers cannot list them and type a slug.
  const listable = can(me, 'integrations.list') && props.workspace !== '';
  const list = useApi(
    async () =>
      listable
        ? unwrap(
            await api.GET('/integrations', {
              params: { query: { workspace_id: props.workspace, status: 'active', page_size: 100 } },
            }),
          )
        : undefined,
    [listable, props.workspace],
  );
  const invalid = invalidProps(props.error, 'body.integration_id', 'provider-integration-error');
  return (
    <>
      {listable ? (
        <label>
          Integration
          <select
            value={props.value}
            onChange={(e) => props.onChange((e.target as HTMLSelectElement).value)}
            aria-busy={list.loading}
            {...invalid}
          >
            <option value="">Choose an integration this workspace may use</option>
            {(list.data?.data ?? []).map((i) => (
              <option key={i.id} value={i.id}>
                {i.name} ({i.ai_provider}, {i.slug})
              </option>
            ))}
          </select>
        </label>
      ) : (
        <label>
          Integration (id or slug)
          <input
            value={props.value}
            onInput={(e) => props.onChange((e.target as HTMLInputElement).value)}
            {...invalid}
          />
        </label>
      )}
      <FieldError error={props.error} field="body.integration_id" id="provider-integration-error" />
    </>
  );
}
