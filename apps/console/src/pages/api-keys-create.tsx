// Creating an API key: kind (admin, workspace service, workspace user), name, workspace, user,
// scopes and limits; then the new key, shown once. The API decides what the caller may create and
// its refusals are shown by the field they name (scopes, expiry, limits, workspace, user).
import { useState } from 'preact/hooks';
import { unwrap } from '../api/client.js';
import { can, isOrganisationLevel } from '../api/me.js';
import { FormDialog, usePatchState, useSubmit } from '../components/dialog-form.js';
import { FieldError, invalidProps } from '../components/field-error.js';
import { LimitsFields } from '../components/limits-fields.js';
import { NO_LIMITS } from '../components/limits-form.js';
import { ModalDialog } from '../components/modal-dialog.js';
import { ScopePicker } from '../components/scope-picker.js';
import { SEARCHED_PAGE, SearchBox, useSearchedPage } from '../components/searched-page.js';
import { SecretOnce } from '../components/secret-once.js';
import { TextField } from '../components/text-field.js';
import { WorkspaceSelect } from '../components/workspace-select.js';
import { useConsole } from '../context.js';
import {
  type CreatePath,
  createRequest,
  type KeyForm,
  type KeyKind,
  KIND_LABEL,
  kindsFor,
  levelOf,
} from './api-keys-form.js';

const PLACED = [
  'body.name',
  'body.description',
  'body.scopes',
  'body.workspace_id',
  'body.user_id',
  'body.rate_limits',
  'body.usage_limits',
  'body.expires_at',
];

export function CreateKeyDialog(props: { onClose(created: boolean): void }) {
  const { api, me } = useConsole();
  const kinds = kindsFor(me);
  const [form, set] = usePatchState<KeyForm>({
    kind: kinds.includes('service') ? 'service' : (kinds[0] ?? 'service'),
    name: '',
    description: '',
    workspace: me.workspace?.id ?? '',
    userId: '',
    scopes: [],
    limits: NO_LIMITS,
  });
  // The raw key lives only here, in memory, until the dialog closes.
  const [created, setCreated] = useState<{ key: string; name: string; masked: string } | undefined>();

  const submitting = useSubmit(async () => {
    const { path, body } = createRequest(form);
    // The three creation routes answer with the same object; the body was built for `path`.
    const result = await api.POST(path as Extract<CreatePath, '/api-keys/workspace/user'>, {
      body: body as never,
    });
    const key = unwrap(result);
    setCreated({ key: key.key, name: key.name, masked: key.masked_key });
  });
  const { error } = submitting;

  if (created)
    return (
      <ModalDialog
        title={`API key "${created.name}" created`}
        onClose={() => props.onClose(true)}
        testId="key-created"
        footer={
          <button type="button" onClick={() => props.onClose(true)}>
            Done, I have copied it
          </button>
        }
      >
        <SecretOnce secret={created.key} label="New API key" />
        <p class="muted">
          Listed from now on as <code>{created.masked}</code>.
        </p>
      </ModalDialog>
    );

  return (
    <FormDialog
      title="Create an API key"
      testId="create-key"
      formId="create-key-form"
      submitting={submitting}
      placed={PLACED}
      submitLabel="Create key"
      onCancel={() => props.onClose(false)}
    >
      <label>
        Kind of key
        <select
          name="kind"
          value={form.kind}
          onChange={(e) => set({ kind: (e.target as HTMLSelectElement).value as KeyKind })}
        >
          {kinds.map((kind) => (
            <option key={kind} value={kind}>
              {KIND_LABEL[kind]}
            </option>
          ))}
        </select>
        <small class="muted">
          {form.kind === 'admin'
            ? 'Acts for the whole organisation, with the admin role and the scopes you choose.'
            : form.kind === 'service'
              ? 'Bound to one workspace, no user; acts as a manager of the workspace.'
              : "Bound to one workspace and one user; acts with that user's workspace role."}
        </small>
      </label>
      <div class="grid">
        <TextField
          label="Name"
          name="name"
          required
          value={form.name}
          onInput={(name) => set({ name })}
          error={error}
          field="body.name"
          errorId="name-error"
        />
        <TextField
          label="Description"
          hint="(optional)"
          name="description"
          value={form.description}
          onInput={(description) => set({ description })}
          error={error}
          field="body.description"
          errorId="description-error"
        />
      </div>
      {form.kind !== 'admin' ? (
        <div class="grid">
          <div>
            <WorkspaceSelect
              label="Workspace"
              name="workspace"
              value={form.workspace}
              onChange={(workspace) => set({ workspace })}
              invalid={invalidProps(error, 'body.workspace_id', 'workspace-error')}
            />
            <FieldError error={error} field="body.workspace_id" id="workspace-error" />
          </div>
          {form.kind === 'user' ? (
            <div>
              <UserField value={form.userId} onChange={(userId) => set({ userId })} error={error} />
            </div>
          ) : null}
        </div>
      ) : null}
      <ScopePicker
        held={me.scopes}
        level={levelOf(form.kind)}
        chosen={form.scopes}
        onChange={(scopes) => set({ scopes })}
        error={error}
      />
      <details>
        <summary>Limits and expiry</summary>
        <LimitsFields value={form.limits} onChange={(limits) => set({ limits })} error={error} />
      </details>
    </FormDialog>
  );
}

/** The user a workspace user key belongs to: yourself by default (when you are a user). */
function UserField(props: { value: string; onChange(id: string): void; error: unknown }) {
  const { api, me } = useConsole();
  const listable = isOrganisationLevel(me) && can(me, 'users.list');
  const {
    list: users,
    search,
    setSearch,
    searchable,
  } = useSearchedPage(
    async (email) =>
      listable
        ? unwrap(
            await api.GET('/users', {
              params: { query: { page_size: SEARCHED_PAGE, status: 'active', ...(email ? { email } : {}) } },
            }),
          )
        : undefined,
    [listable],
  );
  const invalid = invalidProps(props.error, 'body.user_id', 'user-error');
  const self = me.user_id ? 'Me' : 'Choose a user (required for a key without a user)';
  return (
    <>
      {listable ? (
        <label>
          User
          <select
            name="user"
            value={props.value}
            onChange={(e) => props.onChange((e.target as HTMLSelectElement).value)}
            {...invalid}
          >
            <option value="">{self}</option>
            {(users.data?.data ?? []).map((u) => (
              <option key={u.id} value={u.id}>
                {u.email}
              </option>
            ))}
          </select>
        </label>
      ) : (
        <label>
          User id <small class="muted">(empty: {me.user_id ? 'you' : 'required'})</small>
          <input
            name="user"
            value={props.value}
            onInput={(e) => props.onChange((e.target as HTMLInputElement).value)}
            {...invalid}
          />
        </label>
      )}
      {listable && searchable ? (
        <SearchBox label="Find a user by e-mail" value={search} onInput={setSearch} />
      ) : null}
      <FieldError error={props.error} field="body.user_id" id="user-error" />
    </>
  );
}
