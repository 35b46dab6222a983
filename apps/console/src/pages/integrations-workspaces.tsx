// Which workspaces may use an integration: a checklist of the organisation's workspaces (the first
// 100 matching a name filter; the API filters), or everyone with "all workspaces".
import { unwrap } from '../api/client.js';
import { FieldError } from '../components/field-error.js';
import { SEARCHED_PAGE, useSearchedPage } from '../components/searched-page.js';
import { useConsole } from '../context.js';

export function WorkspaceAccess(props: {
  allowAll: boolean;
  chosen: readonly string[];
  onChange(change: { allowAll?: boolean; chosen?: string[] }): void;
  error: unknown;
}) {
  const { api } = useConsole();
  const { list, search, setSearch } = useSearchedPage(
    async (name) =>
      unwrap(
        await api.GET('/workspaces', {
          params: { query: { page_size: SEARCHED_PAGE, status: 'active', ...(name ? { name } : {}) } },
        }),
      ),
    [],
  );
  const chosen = new Set(props.chosen);
  const toggle = (id: string, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(id);
    else next.delete(id);
    props.onChange({ chosen: [...next] });
  };
  const rows = list.data?.data ?? [];
  return (
    <fieldset class="workspace-access" data-testid="workspace-access">
      <legend>Workspace access</legend>
      <label>
        <input
          type="checkbox"
          role="switch"
          aria-checked={props.allowAll}
          checked={props.allowAll}
          onChange={(e) => props.onChange({ allowAll: (e.target as HTMLInputElement).checked })}
        />
        Every workspace may use it (unless a workspace below is unchecked after being given access)
      </label>
      <input
        type="search"
        aria-label="Find a workspace"
        placeholder="Find a workspace by name"
        value={search}
        onInput={(e) => setSearch((e.target as HTMLInputElement).value)}
      />
      <div class="workspace-list" aria-busy={list.loading}>
        {rows.map((w) => (
          <label key={w.id}>
            <input
              type="checkbox"
              checked={chosen.has(w.id)}
              onChange={(e) => toggle(w.id, (e.target as HTMLInputElement).checked)}
            />
            <span>
              {w.name} <small class="muted">({w.slug})</small>
            </span>
          </label>
        ))}
        {list.data && rows.length === 0 ? <p class="muted">No workspace matches.</p> : null}
      </div>
      {list.data && list.data.total > rows.length ? (
        <small class="muted">
          Showing {rows.length} of {list.data.total}: narrow with the name filter.
        </small>
      ) : null}
      <FieldError error={props.error} field="body.workspaces" id="workspaces-error" />
    </fieldset>
  );
}
