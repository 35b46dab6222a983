// A new config: name, optional slug, the workspace (chosen by an organisation-level caller), and the
// config object in the JSON editor. POST /configs creates version 1; its errors are shown where they
// point (the editor's line for a config path, the field for name/slug/workspace).
import { useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import { unwrap } from '../api/client.js';
import { isOrganisationLevel } from '../api/me.js';
import { ErrorBanner } from '../components/error-banner.js';
import { FieldMessage, invalidMessageProps } from '../components/field-error.js';
import { JsonEditor } from '../components/json-editor.js';
import { Page } from '../components/page.js';
import { WorkspaceSelect } from '../components/workspace-select.js';
import { useConsole } from '../context.js';
import { NotJsonError, placeError } from './configs-errors.js';
import { parseEditorText } from './configs-param.js';

export const NEW_CONFIG_TEXT = `{
  "retry": { "attempts": 2 }
}`;

export function ConfigCreate() {
  const { api, me } = useConsole();
  const [, navigate] = useLocation();
  const orgLevel = isOrganisationLevel(me);
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const [workspace, setWorkspace] = useState('');
  const [text, setText] = useState(NEW_CONFIG_TEXT);
  const [error, setError] = useState<{ error: Error; text: string } | undefined>();
  const [busy, setBusy] = useState(false);
  const placed = placeError(error?.error, error?.text ?? '');
  const fieldMessage = (field: string) => (placed.field?.name === field ? placed.field.message : undefined);

  const submit = async (event: Event) => {
    event.preventDefault();
    const parsed = parseEditorText(text);
    if (!parsed.ok) {
      setError({ error: new NotJsonError(parsed.message, parsed.line, parsed.text), text });
      return;
    }
    setBusy(true);
    try {
      const created = unwrap(
        await api.POST('/configs', {
          body: {
            name,
            ...(slug.trim() ? { slug: slug.trim() } : {}),
            ...(workspace ? { workspace_id: workspace } : {}),
            // Sent as typed: the API says what is wrong with a value that is not an object.
            config: parsed.value as Record<string, unknown>,
          },
        }),
      );
      navigate(`/${created.id}`);
    } catch (err) {
      setError({ error: err instanceof Error ? err : new Error(String(err)), text });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Page
      title="New config"
      actions={
        <Link href="/" class="secondary">
          All configs
        </Link>
      }
    >
      <form onSubmit={submit} data-testid="config-form">
        <div class="grid">
          <label>
            Name
            <input
              name="name"
              value={name}
              onInput={(e) => setName((e.target as HTMLInputElement).value)}
              {...invalidMessageProps('config-name-error', fieldMessage('name'))}
            />
            <FieldMessage id="config-name-error" message={fieldMessage('name')} />
          </label>
          <label>
            Slug <small class="muted">(optional: derived from the name)</small>
            <input
              name="slug"
              value={slug}
              onInput={(e) => setSlug((e.target as HTMLInputElement).value)}
              {...invalidMessageProps('config-slug-error', fieldMessage('slug'))}
            />
            <FieldMessage id="config-slug-error" message={fieldMessage('slug')} />
          </label>
          {orgLevel ? (
            <div>
              <WorkspaceSelect
                id="config-workspace"
                label="Workspace"
                value={workspace}
                onChange={setWorkspace}
                emptyLabel="Choose a workspace"
                invalid={invalidMessageProps('config-workspace-error', fieldMessage('workspace_id'))}
              />
              <FieldMessage id="config-workspace-error" message={fieldMessage('workspace_id')} />
            </div>
          ) : null}
        </div>
        <JsonEditor
          id="config-json"
          label="Config (JSON)"
          value={text}
          onInput={setText}
          error={placed.editor}
        />
        <ErrorBanner error={placed.banner} />
        <p class="muted">
          The config object of docs/config.md. Name providers with <code>"provider": "@provider-slug"</code>:
          saved configs may not hold credentials.
        </p>
        <button type="submit" aria-busy={busy} disabled={busy}>
          Create config
        </button>
      </form>
    </Page>
  );
}
