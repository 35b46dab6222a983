// The create / edit dialog of an integration: type, credentials (typed, or read from secret
// references through the Secret mappings section), options, models and workspace access. Logic in
// integrations-form.ts and secret-mappings-form.ts.
import { AI_PROVIDERS, type AiProvider } from '../api/catalogue.js';
import { type ApiPaths, unwrap } from '../api/client.js';
import { FormDialog, usePatchState, useSubmit } from '../components/dialog-form.js';
import { FieldError, invalidProps } from '../components/field-error.js';
import { errorFor } from '../components/form-errors.js';
import { ActiveSwitch, TextField } from '../components/text-field.js';
import { useConsole } from '../context.js';
import {
  chosenShape,
  createBody,
  credentialShapes,
  editForm,
  emptyIntegrationForm,
  type IntegrationForm,
  maskedEntries,
  optionFields,
  shapeMappings,
  updateBody,
  workspaceChanges,
} from './integrations-form.js';
import { WorkspaceAccess } from './integrations-workspaces.js';
import { SecretMappingsFields, useReferences } from './secret-mappings-fields.js';
import { mappableFields, mappingProblem, referenceLabel, rowsFor } from './secret-mappings-form.js';

export type Integration =
  ApiPaths['/integrations/{integrationId}']['get']['responses']['200']['content']['application/json'];

const PLACED = [
  'body.name',
  'body.slug',
  'body.ai_provider',
  'body.credentials',
  'body.secret_mappings',
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
  const [form, set] = usePatchState<IntegrationForm>(() =>
    existing ? editForm(existing.integration, existing.workspaces) : emptyIntegrationForm(),
  );

  const references = useReferences();
  const submitting = useSubmit(async () => {
    const problem = mappingProblem(shapeMappings(form));
    if (problem) throw new Error(problem);
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
  const { error } = submitting;

  const shapes = credentialShapes(form.type);
  const shape = chosenShape(form);
  const mappingFields = mappableFields(shape.fields);
  const mapped = shapeMappings(form);
  const masked = existing ? maskedEntries(existing.integration.credentials) : [];
  return (
    <FormDialog
      title={existing ? `Edit integration "${existing.integration.name}"` : 'Create an integration'}
      testId="integration-dialog"
      submitting={submitting}
      placed={PLACED}
      submitLabel={existing ? 'Save' : 'Create integration'}
      onCancel={() => props.onClose(false)}
    >
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
                mappings: [],
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
        <TextField
          label="Name"
          name="name"
          required
          value={form.name}
          onInput={(name) => set({ name })}
          error={error}
          field="body.name"
          errorId="integration-name-error"
        />
        <TextField
          label="Slug"
          hint={`(${existing ? 'requests use @slug' : 'optional: from the name'})`}
          name="slug"
          value={form.slug}
          onInput={(slug) => set({ slug })}
          error={error}
          field="body.slug"
          errorId="integration-slug-error"
        />
      </div>
      <TextField
        label="Description"
        hint="(optional)"
        value={form.description}
        onInput={(description) => set({ description })}
      />
      {existing ? (
        <ActiveSwitch value={form.status} onChange={(status) => set({ status })}>
          Active (disabled integrations are refused by gateways)
        </ActiveSwitch>
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
            . Leave the fields empty to keep them; anything typed replaces them all (mapped fields are read
            from their references).
          </p>
        ) : null}
        {shapes.length > 1 ? (
          <label>
            Kind of credentials
            <select
              value={String(form.shape)}
              onChange={(e) => {
                const next = Number((e.target as HTMLSelectElement).value);
                const fields = mappableFields(credentialShapes(form.type)[next]?.fields ?? []);
                set({ shape: next, credentials: {}, mappings: rowsFor(form.mappings, fields) });
              }}
            >
              {shapes.map((s, i) => (
                <option key={s.label} value={String(i)}>
                  {s.label}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        {shape.fields.map((field) => {
          const mapping = mapped.find((m) => m.field === field.name);
          return (
            <label key={field.name}>
              {field.label}
              {field.optional ? <small class="muted"> (optional)</small> : null}
              <input
                type="password"
                name={`credentials.${field.name}`}
                autocomplete="new-password"
                spellcheck={false}
                value={mapping ? '' : (form.credentials[field.name] ?? '')}
                disabled={mapping !== undefined}
                placeholder={
                  mapping
                    ? `from secret reference ${referenceLabel(mapping.reference, references.listed)}`
                    : undefined
                }
                onInput={(e) =>
                  set({
                    credentials: { ...form.credentials, [field.name]: (e.target as HTMLInputElement).value },
                  })
                }
                {...invalidProps(error, `body.credentials.${field.name}`, `credential-${field.name}-error`)}
              />
              {mapping ? (
                <small class="muted" data-testid={`credential-${field.name}-mapped`}>
                  Comes from the secret reference {referenceLabel(mapping.reference, references.listed)} (see
                  Secret mappings).
                </small>
              ) : null}
              <FieldError
                error={error}
                field={`body.credentials.${field.name}`}
                id={`credential-${field.name}-error`}
              />
            </label>
          );
        })}
        {!shape.fields.some((f) => errorFor(error, `body.credentials.${f.name}`) !== undefined) ? (
          <FieldError error={error} field="body.credentials" id="credentials-error" />
        ) : null}
      </fieldset>
      <SecretMappingsFields
        rows={mapped}
        fields={mappingFields}
        onChange={(mappings) => set({ mappings })}
        error={error}
        references={references}
      />
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
      <TextField
        label="Allowed models"
        hint="(one per line; empty: every model)"
        name="allowed_models"
        rows={2}
        value={form.allowedModels}
        onInput={(allowedModels) => set({ allowedModels })}
        error={error}
        field="body.allowed_models"
        errorId="allowed-models-error"
      />
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
          <TextField
            label="Its slug"
            hint="(optional: the integration's)"
            value={form.defaultProviderSlug}
            onInput={(defaultProviderSlug) => set({ defaultProviderSlug })}
            error={error}
            field="body.default_provider_slug"
            errorId="default-provider-slug-error"
          />
        </div>
      ) : null}
    </FormDialog>
  );
}
