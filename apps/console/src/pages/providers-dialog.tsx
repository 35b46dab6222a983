import { type ApiPaths, unwrap } from '../api/client.js';
import { can } from '../api/me.js';
import { FormDialog, usePatchState, useSubmit } from '../components/dialog-form.js';
import { FieldError, invalidProps } from '../components/field-error.js';
import { LimitsFields } from '../components/limits-fields.js';
import { ActiveSwitch, TextField } from '../components/text-field.js';
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
  const [form, set] = usePatchState<ProviderForm>(() =>
    existing ? providerEditForm(existing) : emptyProviderForm(me.workspace?.id ?? ''),
  );
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
  const { error } = submitting;
  return (
    <FormDialog
      title={existing ? `Edit provider "@${existing.slug}"` : 'Create a provider'}
      testId="provider-dialog"
      submitting={submitting}
      placed={PLACED}
      submitLabel={existing ? 'Save' : 'Create provider'}
      onCancel={() => props.onClose(false)}
    >
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
        <TextField
          label="Name"
          hint={existing ? undefined : "(optional: the integration's)"}
          value={form.name}
          onInput={(name) => set({ name })}
          error={error}
          field="body.name"
          errorId="provider-name-error"
        />
        <TextField
          label="Slug"
          hint={`(requests use @slug${existing ? '' : "; optional: the integration's"})`}
          value={form.slug}
          onInput={(slug) => set({ slug })}
          error={error}
          field="body.slug"
          errorId="provider-slug-error"
        />
      </div>
      <TextField label="Note" hint="(optional)" value={form.note} onInput={(note) => set({ note })} />
      {existing ? (
        <ActiveSwitch value={form.status} onChange={(status) => set({ status })}>
          Active (gateways refuse a disabled provider)
        </ActiveSwitch>
      ) : null}
      <TextField
        label="Allowed models"
        hint="(one per line; empty: what the integration allows)"
        rows={2}
        value={form.allowedModels}
        onInput={(allowedModels) => set({ allowedModels })}
        error={error}
        field="body.allowed_models"
        errorId="provider-models-error"
      />
      <details>
        <summary>Limits and expiry</summary>
        <LimitsFields value={form.limits} onChange={(limits) => set({ limits })} error={error} />
      </details>
    </FormDialog>
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
