// One API key: what it is and may do, its limits and usage; edit its name, scopes and limits;
// disable or enable it; rotate it (the new key shown once, the old one stops working); delete it
// (revoked for good). Every action is the API's call; its refusal is shown here.
import { useState } from 'preact/hooks';
import { type ApiPaths, unwrap } from '../api/client.js';
import { can } from '../api/me.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { FormDialog, usePatchState, useSubmit } from '../components/dialog-form.js';
import { ErrorBanner } from '../components/error-banner.js';
import { formatTime } from '../components/format.js';
import { LimitsFields } from '../components/limits-fields.js';
import { describeRate, describeUsage, limitsState } from '../components/limits-form.js';
import { ModalDialog } from '../components/modal-dialog.js';
import { ScopePicker } from '../components/scope-picker.js';
import { SecretOnce } from '../components/secret-once.js';
import { TextField } from '../components/text-field.js';
import { useApi } from '../components/use-api.js';
import type { WorkspaceName } from '../components/workspace-names.js';
import { useConsole } from '../context.js';
import { type KeyEdit, TYPE_LABEL, updateBody } from './api-keys-form.js';

type Mode = 'view' | 'edit' | 'rotate' | 'delete' | 'disable';

export function KeyDetailDialog(props: {
  id: string;
  readonly workspaceName: WorkspaceName;
  onClose(changed: boolean): void;
}) {
  const { api, me } = useConsole();
  const [mode, setMode] = useState<Mode>('view');
  const [changed, setChanged] = useState(false);
  const [actionError, setActionError] = useState<Error | undefined>();
  // A rotated key's new secret, in memory only until this dialog closes.
  const [rotated, setRotated] = useState<string | undefined>();
  const key = useApi(
    async () => unwrap(await api.GET('/api-keys/{apiKeyId}', { params: { path: { apiKeyId: props.id } } })),
    [props.id],
  );
  const close = () => props.onClose(changed);
  const done = () => {
    setChanged(true);
    setMode('view');
    key.reload();
  };
  const k = key.data;

  if (rotated)
    return (
      <ModalDialog
        title={`API key "${k?.name ?? ''}" rotated`}
        onClose={close}
        testId="key-rotated"
        footer={
          <button type="button" onClick={close}>
            Done, I have copied it
          </button>
        }
      >
        <SecretOnce secret={rotated} label="Rotated API key" />
        <p class="muted">The previous key no longer works: replace it wherever it is used.</p>
      </ModalDialog>
    );
  if (k && mode === 'rotate')
    return (
      <ConfirmDialog
        title={`Rotate "${k.name}"?`}
        confirmLabel="Rotate key"
        onCancel={() => setMode('view')}
        onConfirm={async () => {
          const result = unwrap(
            await api.POST('/api-keys/{apiKeyId}/rotate', { params: { path: { apiKeyId: k.id } }, body: {} }),
          );
          setChanged(true);
          setRotated(result.key);
        }}
      >
        <p>
          A new secret replaces <code>{k.masked_key}</code> at once: the current key stops working (gateways
          refuse it as soon as they receive the change). The new key is shown once.
        </p>
      </ConfirmDialog>
    );
  if (k && mode === 'delete')
    return (
      <ConfirmDialog
        title={`Revoke and delete "${k.name}"?`}
        confirmLabel="Revoke and delete"
        danger
        onCancel={() => setMode('view')}
        onConfirm={async () => {
          unwrap(await api.DELETE('/api-keys/{apiKeyId}', { params: { path: { apiKeyId: k.id } } }));
          props.onClose(true);
        }}
      >
        <p>
          <code>{k.masked_key}</code> stops working for good and the key is removed. This cannot be undone; to
          stop it for a while, disable it instead.
        </p>
      </ConfirmDialog>
    );
  if (k && mode === 'disable')
    return (
      <ConfirmDialog
        title={`Disable "${k.name}"?`}
        confirmLabel="Disable key"
        danger
        onCancel={() => setMode('view')}
        onConfirm={async () => {
          unwrap(
            await api.PUT('/api-keys/{apiKeyId}', {
              params: { path: { apiKeyId: k.id } },
              body: { status: 'disabled' },
            }),
          );
          done();
        }}
      >
        <p>Requests with this key are refused (401) until it is enabled again.</p>
      </ConfirmDialog>
    );
  if (k && mode === 'edit')
    return (
      <EditKeyDialog
        apiKey={k}
        onCancel={() => setMode('view')}
        onSaved={() => {
          done();
        }}
      />
    );

  const enable = async () => {
    if (!k) return;
    setActionError(undefined);
    try {
      unwrap(
        await api.PUT('/api-keys/{apiKeyId}', {
          params: { path: { apiKeyId: k.id } },
          body: { status: 'active' },
        }),
      );
      done();
    } catch (err) {
      setActionError(err instanceof Error ? err : new Error(String(err)));
    }
  };

  return (
    <ModalDialog
      title={k ? `API key "${k.name}"` : 'API key'}
      onClose={close}
      wide
      testId="key-detail"
      footer={
        k ? (
          <div class="form-actions">
            {can(me, 'api_keys.update') ? (
              <>
                <button type="button" class="secondary" onClick={() => setMode('edit')}>
                  Edit
                </button>
                {k.status === 'active' ? (
                  <button type="button" class="secondary" onClick={() => setMode('disable')}>
                    Disable
                  </button>
                ) : (
                  <button type="button" class="secondary" onClick={enable}>
                    Enable
                  </button>
                )}
              </>
            ) : null}
            {can(me, 'api_keys.rotate') ? (
              <button type="button" class="secondary" onClick={() => setMode('rotate')}>
                Rotate
              </button>
            ) : null}
            {can(me, 'api_keys.delete') ? (
              <button type="button" class="danger" onClick={() => setMode('delete')}>
                Revoke (delete)
              </button>
            ) : null}
          </div>
        ) : null
      }
    >
      <ErrorBanner error={key.error ?? actionError} />
      {k ? (
        <>
          <dl class="key-facts">
            <dt>Key</dt>
            <dd>
              <code data-testid="masked-key">{k.masked_key}</code>
            </dd>
            <dt>Type</dt>
            <dd>{TYPE_LABEL[k.type]}</dd>
            <dt>Status</dt>
            <dd data-testid="key-status">{k.status}</dd>
            <dt>Workspace</dt>
            <dd>{props.workspaceName(k.workspace_id)}</dd>
            {k.user_id ? (
              <>
                <dt>User</dt>
                <dd>
                  <code>{k.user_id}</code>
                </dd>
              </>
            ) : null}
            {k.description ? (
              <>
                <dt>Description</dt>
                <dd>{k.description}</dd>
              </>
            ) : null}
            <dt>Expires</dt>
            <dd>{k.expires_at ? formatTime(k.expires_at) : 'never'}</dd>
            <dt>Created</dt>
            <dd>{formatTime(k.created_at)}</dd>
            <dt>Rotated</dt>
            <dd>{k.rotated_at ? formatTime(k.rotated_at) : 'never'}</dd>
            <dt>Rate limits</dt>
            <dd data-testid="key-rate-limits">
              {k.rate_limits.length ? k.rate_limits.map(describeRate).join('; ') : 'none'}
            </dd>
            <dt>Usage limits</dt>
            <dd>{k.usage_limits.length ? k.usage_limits.map(describeUsage).join('; ') : 'none'}</dd>
          </dl>
          <h4>Scopes</h4>
          <p class="scope-list" data-testid="key-scopes">
            {k.scopes.map((s) => (
              <code key={s}>{s}</code>
            ))}
          </p>
        </>
      ) : (
        <p aria-busy="true">Loading…</p>
      )}
    </ModalDialog>
  );
}

type ApiKey = ApiPaths['/api-keys/{apiKeyId}']['get']['responses']['200']['content']['application/json'];

function EditKeyDialog(props: { apiKey: ApiKey; onCancel(): void; onSaved(): void }) {
  const { api, me } = useConsole();
  const k = props.apiKey;
  const [edit, set] = usePatchState<KeyEdit>({
    name: k.name,
    description: k.description,
    scopes: k.scopes,
    limits: limitsState(k),
  });
  const submitting = useSubmit(async () => {
    const body = updateBody(k, edit);
    if (Object.keys(body).length === 0) {
      props.onCancel();
      return;
    }
    unwrap(
      await api.PUT('/api-keys/{apiKeyId}', { params: { path: { apiKeyId: k.id } }, body: body as never }),
    );
    props.onSaved();
  });
  const { error } = submitting;
  return (
    <FormDialog
      title={`Edit "${k.name}"`}
      testId="key-edit"
      submitting={submitting}
      placed={['body.name', 'body.scopes', 'body.rate_limits', 'body.usage_limits', 'body.expires_at']}
      submitLabel="Save"
      onCancel={props.onCancel}
    >
      <div class="grid">
        <TextField
          label="Name"
          required
          value={edit.name}
          onInput={(name) => set({ name })}
          error={error}
          field="body.name"
          errorId="edit-name-error"
        />
        <TextField
          label="Description"
          value={edit.description}
          onInput={(description) => set({ description })}
        />
      </div>
      <ScopePicker
        held={[...new Set([...me.scopes, ...k.scopes])]}
        level={k.type === 'admin' ? 'organisation' : 'workspace'}
        chosen={edit.scopes}
        onChange={(scopes) => set({ scopes })}
        error={error}
      />
      <LimitsFields value={edit.limits} onChange={(limits) => set({ limits })} error={error} />
    </FormDialog>
  );
}
