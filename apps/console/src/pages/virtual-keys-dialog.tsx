// The edit dialog of a virtual key (legacy API, PUT /virtual-keys/{id}): name, note, status, a new
// key (empty keeps the stored one) and its secret mappings; a key made from an integration shows its
// key and mappings read-only with the reason. Logic in virtual-keys-form.ts.
import { type ApiPaths, unwrap } from '../api/client.js';
import { FormDialog, usePatchState, useSubmit } from '../components/dialog-form.js';
import { FieldError, invalidProps } from '../components/field-error.js';
import { ActiveSwitch, TextField } from '../components/text-field.js';
import { useConsole } from '../context.js';
import { SecretMappingsFields, useReferences } from './secret-mappings-fields.js';
import { mappingProblem, referenceLabel } from './secret-mappings-form.js';
import {
  credentialsReadOnlyReason,
  keyIsMapped,
  updateVirtualKeyBody,
  type VirtualKeyForm,
  virtualKeyEditForm,
  virtualKeyMappableFields,
} from './virtual-keys-form.js';

export type VirtualKey =
  ApiPaths['/virtual-keys/{virtualKeyId}']['get']['responses']['200']['content']['application/json'];

const PLACED = ['body.name', 'body.note', 'body.key', 'body.credentials', 'body.secret_mappings'];

export function VirtualKeyDialog(props: { existing: VirtualKey; onClose(changed: boolean): void }) {
  const { api } = useConsole();
  const vk = props.existing;
  const [form, set] = usePatchState<VirtualKeyForm>(() => virtualKeyEditForm(vk));
  const references = useReferences();
  const readOnly = credentialsReadOnlyReason(vk);
  const submitting = useSubmit(async () => {
    const problem = readOnly === undefined ? mappingProblem(form.mappings) : undefined;
    if (problem) throw new Error(problem);
    const body = updateVirtualKeyBody(vk, form);
    if (Object.keys(body).length > 0)
      unwrap(
        await api.PUT('/virtual-keys/{virtualKeyId}', {
          params: { path: { virtualKeyId: vk.id } },
          body: body as never,
        }),
      );
    props.onClose(true);
  });
  const { error } = submitting;
  const apiKeyMapping = form.mappings.find((m) => m.field === 'api_key');
  return (
    <FormDialog
      title={`Edit virtual key "${vk.name}"`}
      testId="virtual-key-dialog"
      submitting={submitting}
      placed={PLACED}
      submitLabel="Save"
      onCancel={() => props.onClose(false)}
    >
      <TextField
        label="Name"
        name="name"
        required
        value={form.name}
        onInput={(name) => set({ name })}
        error={error}
        field="body.name"
        errorId="virtual-key-name-error"
      />
      <TextField
        label="Note"
        hint="(optional)"
        name="note"
        value={form.note}
        onInput={(note) => set({ note })}
        error={error}
        field="body.note"
        errorId="virtual-key-note-error"
      />
      <ActiveSwitch value={form.status} onChange={(status) => set({ status })}>
        Active (gateways refuse a disabled virtual key)
      </ActiveSwitch>
      <fieldset data-testid="virtual-key-credentials">
        <legend>Key</legend>
        {readOnly !== undefined ? (
          <p class="muted" data-testid="virtual-key-key-read-only">
            {readOnly}
          </p>
        ) : (
          <label>
            New key <small class="muted">(api_key; stored: {vk.key ? <code>{vk.key}</code> : 'none'})</small>
            <input
              type="password"
              name="key"
              autocomplete="new-password"
              spellcheck={false}
              value={keyIsMapped(form) ? '' : form.key}
              disabled={keyIsMapped(form)}
              placeholder={
                apiKeyMapping
                  ? `from secret reference ${referenceLabel(apiKeyMapping.reference, references.listed)}`
                  : 'empty: keep the stored key'
              }
              onInput={(e) => set({ key: (e.target as HTMLInputElement).value })}
              {...invalidProps(error, 'body.key', 'virtual-key-key-error')}
            />
            {apiKeyMapping ? (
              <small class="muted" data-testid="key-mapped">
                Comes from the secret reference {referenceLabel(apiKeyMapping.reference, references.listed)}{' '}
                (see Secret mappings).
              </small>
            ) : null}
            <FieldError error={error} field="body.key" id="virtual-key-key-error" />
            <FieldError error={error} field="body.credentials" id="virtual-key-credentials-error" />
          </label>
        )}
      </fieldset>
      <SecretMappingsFields
        rows={form.mappings}
        fields={virtualKeyMappableFields(vk)}
        onChange={(mappings) => set({ mappings })}
        error={error}
        references={references}
        readOnlyReason={readOnly}
      />
    </FormDialog>
  );
}
