// Creating or editing an integration: provider type, name, credentials (password fields, never
// filled from the API: it returns them masked), options of the type (custom_host...), allowed
// models and workspace access. The API validates; its errors are shown by the field they name.
import { useState } from 'preact/hooks';
import { AI_PROVIDERS, type AiProvider } from '../api/catalogue.js';
import { type ApiPaths, unwrap } from '../api/client.js';
import { DialogActions, useSubmit } from '../components/dialog-form.js';
import { FieldError, invalidProps } from '../components/field-error.js';
import { errorFor } from '../components/form-errors.js';
import { ModalDialog } from '../components/modal-dialog.js';
import { useConsole } from '../context.js';
import {
  createBody,
  credentialShapes,
  editForm,
  emptyIntegrationForm,
  type IntegrationForm,
  maskedEntries,
  optionFields,
  updateBody,
  workspaceChanges,
} from './integrations-form.js';
import { WorkspaceAccess } from './integrations-workspaces.js';

export type Integration =
  ApiPaths['/integrations/{integrationId}']['get']['responses']['200']['content']['application/json'];

const PLACED = [
  'body.name',
  'body.slug',
  'body.ai_provider',
  'body.credentials',
  'body.options',
  'body.workspaces',
  'body.allowed_models',
  'body.default_provider_slug',
];

export function IntegrationDialog(props: {
  /** Editing: the integration and the workspaces it is enabled for. */
  existing?: { integration: Integration; workspaces: readonly string[] };
  onClose(changed: boolean): void;
}) {
  const { api } = useConsole();
  const existing = props.existing;
  const [form, setForm] = useState<IntegrationForm>(() =>
    existing ? editForm(existing.integration, existing.workspaces) : emptyIntegrationForm(),
  );
  const set = (patch: Partial<IntegrationForm>) => setForm((f) => ({ ...f, ...patch }));

  const submitting = useSubmit(async () => {
    if (!existing) {
      unwrap(await api.POST('/integrations', { body: createBody(form) as never }));
    } else {
      const id = existing.integration.id;
      const body = updateBody(existing.integration, form);
      if (Object.keys(body).length > 0)
        unwrap(
          await api.PUT('/integrations/{integrationId}', {
            params: { path: { integrationId: id } },
            body: body as never,
          }),
        );
      const workspaces = workspaceChanges(existing.workspaces, form.workspaces);
      if (workspaces)
        unwrap(
          await api.PUT('/integrations/{integrationId}/workspaces', {
            params: { path: { integrationId: id } },
            body: { workspaces },
          }),
        );
    }
    props.onClose(true);
  });
  const { error, submit } = submitting;

  const shapes = credentialShapes(form.type);
  const shape = shapes[form.shape] ?? shapes[0];
  const masked = existing ? maskedEntries(existing.integration.credentials) : [];
  return (
    <ModalDialog
      title={existing ? `Edit integration "${existing.integration.name}"` : 'Create an integration'}
      onClose={() => props.onClose(false)}
      wide
      testId="integration-dialog"
    >
      <form onSubmit={submit}>
        <div class="grid">
          <label>
            Provider type
            <select
              name="ai_provider"
              value={form.type}
              disabled={existing !== undefined}
              onChange={(e) =>
                set({
                  type: (e.target as HTMLSelectElement).value as AiProvider,
                  shape: 0,
                  credentials: {},
                  options: {},
                })
              }
            >
              {AI_PROVIDERS.map((p) => (
                <option key={p} value={p}>
                  {p}
                </option>
              ))}
            </select>
            <FieldError error={error} field="body.ai_provider" id="ai-provider-error" />
          </label>
          <label>
            Name
            <input
              name="name"
              required
              value={form.name}
              onInput={(e) => set({ name: (e.target as HTMLInputElement).value })}
              {...invalidProps(error, 'body.name', 'integration-name-error')}
            />
            <FieldError error={error} field="body.name" id="integration-name-error" />
          </label>
          <label>
            Slug <small class="muted">({existing ? 'requests use @slug' : 'optional: from the name'})</small>
            <input
              name="slug"
              value={form.slug}
              onInput={(e) => set({ slug: (e.target as HTMLInputElement).value })}
              {...invalidProps(error, 'body.slug', 'integration-slug-error')}
            />
            <FieldError error={error} field="body.slug" id="integration-slug-error" />
          </label>
        </div>
        <label>
          Description <small class="muted">(optional)</small>
          <input
            value={form.description}
            onInput={(e) => set({ description: (e.target as HTMLInputElement).value })}
          />
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
            Active (disabled integrations are refused by gateways)
          </label>
        ) : null}
        <fieldset data-testid="credentials">
          <legend>Credentials</legend>
          {existing ? (
            <p class="muted" data-testid="masked-credentials">
              Stored:{' '}
              {masked.length
                ? masked.map(([name, value]) => (
                    <span key={name}>
                      {name} <code>{value}</code>{' '}
                    </span>
                  ))
                : 'none'}
              . Leave the fields empty to keep them; anything typed replaces them all.
            </p>
          ) : null}
          {shapes.length > 1 ? (
            <label>
              Kind of credentials
              <select
                value={String(form.shape)}
                onChange={(e) =>
                  set({ shape: Number((e.target as HTMLSelectElement).value), credentials: {} })
                }
              >
                {shapes.map((s, i) => (
                  <option key={s.label} value={String(i)}>
                    {s.label}
                  </option>
                ))}
              </select>
            </label>
          ) : null}
          {shape?.fields.map((field) => (
            <label key={field.name}>
              {field.label}
              {field.optional ? <small class="muted"> (optional)</small> : null}
              <input
                type="password"
                name={`credentials.${field.name}`}
                autocomplete="new-password"
                spellcheck={false}
                value={form.credentials[field.name] ?? ''}
                onInput={(e) =>
                  set({
                    credentials: { ...form.credentials, [field.name]: (e.target as HTMLInputElement).value },
                  })
                }
                {...invalidProps(error, `body.credentials.${field.name}`, `credential-${field.name}-error`)}
              />
              <FieldError
                error={error}
                field={`body.credentials.${field.name}`}
                id={`credential-${field.name}-error`}
              />
            </label>
          ))}
          {!shape?.fields.some((f) => errorFor(error, `body.credentials.${f.name}`) !== undefined) ? (
            <FieldError error={error} field="body.credentials" id="credentials-error" />
          ) : null}
        </fieldset>
        <fieldset>
          <legend>Options</legend>
          {optionFields(form.type).map((field) => (
            <label key={field.name}>
              {field.label}
              {field.required ? null : <small class="muted"> (optional)</small>}
              <input
                name={`options.${field.name}`}
                placeholder={field.placeholder}
                value={form.options[field.name] ?? ''}
                onInput={(e) =>
                  set({ options: { ...form.options, [field.name]: (e.target as HTMLInputElement).value } })
                }
                {...invalidProps(error, `body.options.${field.name}`, `option-${field.name}-error`)}
              />
              <FieldError
                error={error}
                field={`body.options.${field.name}`}
                id={`option-${field.name}-error`}
              />
            </label>
          ))}
          {!optionFields(form.type).some((f) => errorFor(error, `body.options.${f.name}`) !== undefined) ? (
            <FieldError error={error} field="body.options" id="options-error" />
          ) : null}
        </fieldset>
        <label>
          Allowed models <small class="muted">(one per line; empty: every model)</small>
          <textarea
            name="allowed_models"
            rows={2}
            value={form.allowedModels}
            onInput={(e) => set({ allowedModels: (e.target as HTMLTextAreaElement).value })}
          />
          <FieldError error={error} field="body.allowed_models" id="allowed-models-error" />
        </label>
        <WorkspaceAccess
          allowAll={form.allowAll}
          chosen={form.workspaces}
          error={error}
          onChange={(change) =>
            set({
              ...(change.allowAll !== undefined ? { allowAll: change.allowAll } : {}),
              ...(change.chosen ? { workspaces: change.chosen } : {}),
            })
          }
        />
        {!existing ? (
          <div class="grid">
            <label>
              <input
                type="checkbox"
                checked={form.createDefaultProvider}
                onChange={(e) => set({ createDefaultProvider: (e.target as HTMLInputElement).checked })}
              />
              Create a provider in each chosen workspace
            </label>
            <label>
              Its slug <small class="muted">(optional: the integration's)</small>
              <input
                value={form.defaultProviderSlug}
                onInput={(e) => set({ defaultProviderSlug: (e.target as HTMLInputElement).value })}
              />
              <FieldError error={error} field="body.default_provider_slug" id="default-provider-slug-error" />
            </label>
          </div>
        ) : null}
        <DialogActions
          submitting={submitting}
          placed={PLACED}
          submitLabel={existing ? 'Save' : 'Create integration'}
          onCancel={() => props.onClose(false)}
        />
      </form>
    </ModalDialog>
  );
}
