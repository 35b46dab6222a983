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
import { TextField } from '../components/text-field.js';
import { WorkspaceSelect } from '../components/workspace-select.js';
import { useConsole } from '../context.js';
import { useConfigFormError } from './configs-form-error.js';

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
  const [busy, setBusy] = useState(false);
  const { placed, fieldMessage, parse, fail } = useConfigFormError();

  const submit = async (event: Event) => {
    event.preventDefault();
    const config = parse(text);
    if (config === undefined) return;
    setBusy(true);
    try {
      const created = unwrap(
        await api.POST('/configs', {
          body: {
            name,
            ...(slug.trim() ? { slug: slug.trim() } : {}),
            ...(workspace ? { workspace_id: workspace } : {}),
            config,
          },
        }),
      );
      navigate(`/${created.id}`);
    } catch (err) {
      fail(err, text);
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
          <TextField
            label="Name"
            name="name"
            value={name}
            onInput={setName}
            message={fieldMessage('name')}
            errorId="config-name-error"
          />
          <TextField
            label="Slug"
            hint="(optional: derived from the name)"
            name="slug"
            value={slug}
            onInput={setSlug}
            message={fieldMessage('slug')}
            errorId="config-slug-error"
          />
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
