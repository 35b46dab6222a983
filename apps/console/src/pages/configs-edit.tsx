// One config: its name and config object in the editor, saved with PUT /configs/{id} (a changed
// object becomes a new version); archive / restore; delete with confirmation; a link to its history.
// Errors are shown where they point, as on the create form.
import { useEffect, useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import { unwrap } from '../api/client.js';
import { can } from '../api/me.js';
import { ErrorBanner } from '../components/error-banner.js';
import { FieldMessage } from '../components/field-error.js';
import { formatTime } from '../components/format.js';
import { InlineConfirm } from '../components/inline-confirm.js';
import { JsonEditor } from '../components/json-editor.js';
import { Page } from '../components/page.js';
import { TextField } from '../components/text-field.js';
import { useApi } from '../components/use-api.js';
import { useWorkspaceNames } from '../components/workspace-names.js';
import { useConsole } from '../context.js';
import { useConfigFormError } from './configs-form-error.js';
import { configText } from './configs-param.js';

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
  const { placed, fieldMessage, parse, fail, clear } = useConfigFormError();
  const [saved, setSaved] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  useEffect(() => setConfig(props.config), [props.config]);

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
      clear();
      setSaved(versionChanged ? `Saved as version ${updated.version}.` : 'Saved.');
    } catch (err) {
      fail(err, text);
    } finally {
      setBusy(false);
    }
  };
  const save = (event: Event) => {
    event.preventDefault();
    const parsed = parse(text);
    if (parsed === undefined) {
      setSaved(undefined);
      return;
    }
    void put({ name, config: parsed });
  };
  const remove = async () => {
    setBusy(true);
    try {
      unwrap(await api.DELETE('/configs/{configId}', { params: { path: { configId: config.id } } }));
      navigate('/');
    } catch (err) {
      fail(err, text);
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
        <TextField
          label="Name"
          name="name"
          value={name}
          readOnly={!props.canWrite}
          onInput={setName}
          message={fieldMessage('name')}
          errorId="config-name-error"
        />
        <JsonEditor
          id="config-json"
          label="Config (JSON)"
          value={text}
          onInput={setText}
          error={placed.editor}
          readOnly={!props.canWrite}
        />
        <ErrorBanner error={placed.banner} />
        <FieldMessage id="config-status-error" message={fieldMessage('status')} />
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
              <InlineConfirm
                askLabel="Delete…"
                question="Delete this config and all its versions?"
                confirmLabel="Delete for good"
                asking={confirmDelete}
                onAsk={() => setConfirmDelete(true)}
                onConfirm={() => void remove()}
                onCancel={() => setConfirmDelete(false)}
                disabled={busy}
              />
            ) : null}
          </div>
        ) : null}
      </form>
    </>
  );
}
