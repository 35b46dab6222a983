// One config: its name and config object in the editor, saved with PUT /configs/{id} (a changed
// object becomes a new version); archive / restore; delete with confirmation; a link to its history.
// Errors are shown where they point, as on the create form.
import { useEffect, useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import { unwrap } from '../api/client.js';
import { can } from '../api/me.js';
import { ErrorBanner } from '../components/error-banner.js';
import { FieldMessage, invalidMessageProps } from '../components/field-error.js';
import { formatTime } from '../components/format.js';
import { JsonEditor } from '../components/json-editor.js';
import { Page } from '../components/page.js';
import { useApi } from '../components/use-api.js';
import { useWorkspaceNames } from '../components/workspace-names.js';
import { useConsole } from '../context.js';
import { NotJsonError, placeError } from './configs-errors.js';
import { configText, parseEditorText } from './configs-param.js';

type Config = NonNullable<Awaited<ReturnType<typeof loadConfig>>>;

async function loadConfig(api: ReturnType<typeof useConsole>['api'], id: string) {
  return unwrap(await api.GET('/configs/{configId}', { params: { path: { configId: id } } }));
}

export function ConfigEdit(props: { id: string }) {
  const { api, me } = useConsole();
  const loaded = useApi(() => loadConfig(api, props.id), [api, props.id]);
  return (
    <Page
      title={loaded.data ? `Config: ${loaded.data.name}` : 'Config'}
      actions={
        <>
          <Link href={`/${props.id}/history`} role="button" class="secondary outline">
            Version history
          </Link>
          <Link href="/" role="button" class="secondary outline">
            All configs
          </Link>
        </>
      }
    >
      <ErrorBanner error={loaded.error} />
      {loaded.data ? <ConfigForm config={loaded.data} canWrite={can(me, 'configs.update')} /> : null}
    </Page>
  );
}

function ConfigForm(props: { config: Config; canWrite: boolean }) {
  const { api, me } = useConsole();
  const [, navigate] = useLocation();
  const workspaceName = useWorkspaceNames();
  const [config, setConfig] = useState(props.config);
  const [name, setName] = useState(config.name);
  const [text, setText] = useState(configText(config.config));
  const [error, setError] = useState<{ error: Error; text: string } | undefined>();
  const [saved, setSaved] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  useEffect(() => setConfig(props.config), [props.config]);
  const placed = placeError(error?.error, error?.text ?? '');
  const nameError = placed.field?.name === 'name' ? placed.field.message : undefined;
  const statusError = placed.field?.name === 'status' ? placed.field.message : undefined;

  const put = async (body: {
    name?: string;
    config?: Record<string, unknown>;
    status?: 'active' | 'archived';
  }) => {
    setBusy(true);
    setSaved(undefined);
    try {
      const updated = unwrap(
        await api.PUT('/configs/{configId}', { params: { path: { configId: config.id } }, body }),
      );
      const versionChanged = updated.version !== config.version;
      setConfig(updated);
      setName(updated.name);
      setText(configText(updated.config));
      setError(undefined);
      setSaved(versionChanged ? `Saved as version ${updated.version}.` : 'Saved.');
    } catch (err) {
      setError({ error: err instanceof Error ? err : new Error(String(err)), text });
    } finally {
      setBusy(false);
    }
  };
  const save = (event: Event) => {
    event.preventDefault();
    const parsed = parseEditorText(text);
    if (!parsed.ok) {
      setSaved(undefined);
      setError({ error: new NotJsonError(parsed.message, parsed.line, parsed.text), text });
      return;
    }
    void put({ name, config: parsed.value as Record<string, unknown> });
  };
  const remove = async () => {
    setBusy(true);
    try {
      unwrap(await api.DELETE('/configs/{configId}', { params: { path: { configId: config.id } } }));
      navigate('/');
    } catch (err) {
      setError({ error: err instanceof Error ? err : new Error(String(err)), text });
      setBusy(false);
    }
  };

  return (
    <>
      <p class="muted" data-testid="config-summary">
        <code>{config.slug}</code> · workspace {workspaceName(config.workspace_id)} · version{' '}
        <strong data-testid="config-version">{config.version}</strong> · {config.status} · updated{' '}
        {formatTime(config.last_updated_at)}
      </p>
      <form onSubmit={save} data-testid="config-form">
        <label>
          Name
          <input
            name="name"
            value={name}
            readOnly={!props.canWrite}
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
            {...invalidMessageProps('config-name-error', nameError)}
          />
          <FieldMessage id="config-name-error" message={nameError} />
        </label>
        <JsonEditor
          id="config-json"
          label="Config (JSON)"
          value={text}
          onInput={setText}
          error={placed.editor}
          readOnly={!props.canWrite}
        />
        <ErrorBanner error={placed.banner} />
        <FieldMessage id="config-status-error" message={statusError} />
        {saved ? (
          <p class="notice" role="status" data-testid="saved">
            {saved}
          </p>
        ) : null}
        {props.canWrite ? (
          <div class="form-actions">
            <button type="submit" aria-busy={busy} disabled={busy}>
              Save
            </button>
            <button
              type="button"
              class="secondary outline"
              disabled={busy}
              onClick={() => void put({ status: config.status === 'active' ? 'archived' : 'active' })}
            >
              {config.status === 'active' ? 'Archive' : 'Restore'}
            </button>
            {can(me, 'configs.delete') ? (
              confirmDelete ? (
                <span class="confirm">
                  <span>Delete this config and all its versions?</span>
                  <button type="button" class="danger" onClick={() => void remove()} disabled={busy}>
                    Delete for good
                  </button>
                  <button type="button" class="secondary outline" onClick={() => setConfirmDelete(false)}>
                    Cancel
                  </button>
                </span>
              ) : (
                <button type="button" class="secondary outline" onClick={() => setConfirmDelete(true)}>
                  Delete…
                </button>
              )
            ) : null}
          </div>
        ) : null}
      </form>
    </>
  );
}
