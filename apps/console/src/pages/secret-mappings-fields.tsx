// The "Secret mappings" section of the integration and virtual key dialogs: one row per credential
// field taken from a secret reference (field, reference, key inside the secret), add and remove.
// References are picked from GET /secret-references when the caller holds its scope (organisation
// owners and admins); others type the reference's id or slug. State and checks: secret-mappings-form.ts.
import { unwrap } from '../api/client.js';
import { can } from '../api/me.js';
import { FieldError } from '../components/field-error.js';
import { useApi } from '../components/use-api.js';
import { useConsole } from '../context.js';
import type { CredentialField } from './integrations-form.js';
import {
  type MappingRow,
  newMappingRow,
  type ReferenceLike,
  referenceLabel,
} from './secret-mappings-form.js';

export function SecretMappingsFields(props: {
  rows: readonly MappingRow[];
  /** The fields a reference may fill here. */
  fields: readonly CredentialField[];
  onChange(rows: MappingRow[]): void;
  error: unknown;
  /** From useReferences() in the dialog, which also names the references by the credential inputs. */
  references: References;
  /** Shown instead of the editor when the mappings cannot be changed here (and why). */
  readOnlyReason?: string;
}) {
  const { rows, fields } = props;
  const { references } = props;
  const set = (index: number, change: Partial<MappingRow>) =>
    props.onChange(rows.map((r, i) => (i === index ? { ...r, ...change } : r)));
  const added = newMappingRow(rows, fields);
  return (
    <fieldset data-testid="secret-mappings">
      <legend>Secret mappings</legend>
      {props.readOnlyReason !== undefined ? (
        <>
          {rows.length ? <MappingList rows={rows} references={references} /> : null}
          <p class="muted" data-testid="secret-mappings-read-only">
            {props.readOnlyReason}
          </p>
        </>
      ) : (
        <>
          <p class="muted">
            A mapped credential field is read from the secret manager by the control plane (now, then on the
            reference's refresh schedule) instead of being typed here. Removing every mapping keeps the last
            values read as the stored credentials.
          </p>
          {fields.length === 0 ? (
            <p class="muted">This provider type has no field a reference can fill.</p>
          ) : null}
          {rows.map((row, index) => (
            <div key={index} class="grid" data-testid={`secret-mapping-${index + 1}`}>
              <select
                aria-label={`mapping ${index + 1} field`}
                value={row.field}
                onChange={(e) => set(index, { field: (e.target as HTMLSelectElement).value })}
              >
                {fields
                  .filter((f) => f.name === row.field || !rows.some((r) => r.field === f.name))
                  .map((f) => (
                    <option key={f.name} value={f.name}>
                      {f.label} ({f.name})
                    </option>
                  ))}
                {fields.some((f) => f.name === row.field) ? null : (
                  <option value={row.field}>{row.field}</option>
                )}
              </select>
              {references.listed ? (
                <select
                  aria-label={`mapping ${index + 1} secret reference`}
                  aria-busy={references.loading}
                  value={row.reference}
                  onChange={(e) => set(index, { reference: (e.target as HTMLSelectElement).value })}
                >
                  <option value="">Choose a secret reference</option>
                  {references.listed.map((r) => (
                    <option key={r.id} value={r.id}>
                      {r.name} ({r.slug})
                    </option>
                  ))}
                  {row.reference !== '' && !references.listed.some((r) => r.id === row.reference) ? (
                    <option value={row.reference}>{row.reference}</option>
                  ) : null}
                </select>
              ) : (
                <input
                  aria-label={`mapping ${index + 1} secret reference (id or slug)`}
                  placeholder="secret reference id or slug"
                  value={row.reference}
                  onInput={(e) => set(index, { reference: (e.target as HTMLInputElement).value })}
                />
              )}
              <input
                aria-label={`mapping ${index + 1} key in the secret`}
                placeholder="key in the secret (optional)"
                value={row.key}
                onInput={(e) => set(index, { key: (e.target as HTMLInputElement).value })}
              />
              <button
                type="button"
                class="secondary outline"
                onClick={() => props.onChange(rows.filter((_, i) => i !== index))}
              >
                Remove
              </button>
            </div>
          ))}
          {added ? (
            <button type="button" class="secondary outline" onClick={() => props.onChange([...rows, added])}>
              Add a secret mapping
            </button>
          ) : null}
          {references.error ? (
            <small class="field-error">
              Secret references could not be listed: {references.error.message}
            </small>
          ) : null}
        </>
      )}
      <FieldError error={props.error} field="body.secret_mappings" id="secret-mappings-error" />
    </fieldset>
  );
}

function MappingList(props: { rows: readonly MappingRow[]; references: References }) {
  return (
    <ul>
      {props.rows.map((row) => (
        <li key={row.field}>
          <code>{row.field}</code> from {referenceLabel(row.reference, props.references.listed)}
          {row.key ? (
            <>
              , key <code>{row.key}</code>
            </>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

export interface References {
  /** The organisation's references; undefined when the caller may not list them. */
  readonly listed: readonly ReferenceLike[] | undefined;
  readonly loading: boolean;
  readonly error: Error | undefined;
}

/** The references to pick from (one page of 500, the API's largest: organisations hold a few). */
export function useReferences(): References {
  const { api, me } = useConsole();
  const listable = can(me, 'secret_references.list');
  const list = useApi(
    async () =>
      listable
        ? unwrap(await api.GET('/secret-references', { params: { query: { page_size: 500 } } })).data
        : undefined,
    [listable],
  );
  return { listed: listable ? (list.data ?? []) : undefined, loading: list.loading, error: list.error };
}
