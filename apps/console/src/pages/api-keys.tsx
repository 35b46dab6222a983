// The API keys page (issue 22): the keys the caller may see, filtered by type, status and
// workspace and paginated by the API (GET /api-keys); create a key (shown once), and a key's
// detail with edit, disable, rotate and revoke.
import { useState } from 'preact/hooks';
import { unwrap } from '../api/client.js';
import { can, isOrganisationLevel } from '../api/me.js';
import { formatTime } from '../components/format.js';
import { ListPager } from '../components/list-pager.js';
import { ListTable } from '../components/list-table.js';
import { Page } from '../components/page.js';
import { useApi } from '../components/use-api.js';
import { useWorkspaceNames } from '../components/workspace-names.js';
import { WorkspaceSelect } from '../components/workspace-select.js';
import { useConsole } from '../context.js';
import { CreateKeyDialog } from './api-keys-create.js';
import { KeyDetailDialog } from './api-keys-detail.js';
import { type KeyFilters, kindsFor, listQuery, PAGE_SIZE, TYPE_LABEL } from './api-keys-form.js';

export function ApiKeysPage() {
  const { api, me } = useConsole();
  const [filters, setFilters] = useState<KeyFilters>({ type: '', status: '', workspace: '', page: 0 });
  const [creating, setCreating] = useState(false);
  const [open, setOpen] = useState<string | undefined>();
  const keys = useApi(
    async () => unwrap(await api.GET('/api-keys', { params: { query: listQuery(filters) } })),
    [filters],
  );
  const workspaceName = useWorkspaceNames();
  const filter = (patch: Partial<KeyFilters>) => setFilters((f) => ({ ...f, ...patch, page: 0 }));
  const rows = keys.data?.data ?? [];
  return (
    <Page
      title="API keys"
      actions={
        kindsFor(me).length > 0 ? (
          <button type="button" onClick={() => setCreating(true)}>
            Create API key
          </button>
        ) : null
      }
    >
      <form class="filters" aria-label="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Type
          <select
            name="type"
            value={filters.type}
            onChange={(e) => filter({ type: (e.target as HTMLSelectElement).value as KeyFilters['type'] })}
          >
            <option value="">All types</option>
            <option value="admin">admin</option>
            <option value="service">workspace service</option>
            <option value="workspace">workspace user</option>
          </select>
        </label>
        <label>
          Status
          <select
            name="status"
            value={filters.status}
            onChange={(e) =>
              filter({ status: (e.target as HTMLSelectElement).value as KeyFilters['status'] })
            }
          >
            <option value="">Any status</option>
            <option value="active">active</option>
            <option value="disabled">disabled</option>
            <option value="expired">expired</option>
          </select>
        </label>
        {isOrganisationLevel(me) ? (
          <WorkspaceSelect
            label="Workspace"
            name="workspace-filter"
            emptyLabel="All workspaces"
            value={filters.workspace}
            onChange={(workspace) => filter({ workspace })}
          />
        ) : null}
      </form>
      <ListTable
        testId="keys-table"
        columns={['Name', 'Key', 'Type', 'Workspace', 'Scopes', 'Status', 'Expires', 'Created']}
        loading={keys.loading}
        error={keys.error}
        rows={keys.data?.data}
        empty="No key matches these filters."
        pager={
          <ListPager
            page={filters.page}
            pageSize={PAGE_SIZE}
            total={keys.data?.total}
            onPage={(page) => setFilters((f) => ({ ...f, page }))}
          />
        }
      >
        {rows.map((k) => (
          <tr key={k.id}>
            <td>
              <button type="button" class="link" onClick={() => setOpen(k.id)}>
                {k.name}
              </button>
            </td>
            <td>
              <code>{k.masked_key}</code>
            </td>
            <td>{TYPE_LABEL[k.type]}</td>
            <td>{workspaceName(k.workspace_id)}</td>
            <td title={k.scopes.join(', ')}>{k.scopes.length}</td>
            <td>
              <span class={`status status-${k.status}`}>{k.status}</span>
            </td>
            <td>{k.expires_at ? formatTime(k.expires_at) : 'never'}</td>
            <td>{formatTime(k.created_at)}</td>
          </tr>
        ))}
      </ListTable>
      {creating ? (
        <CreateKeyDialog
          onClose={(created) => {
            setCreating(false);
            if (created) keys.reload();
          }}
        />
      ) : null}
      {open && can(me, 'api_keys.read') ? (
        <KeyDetailDialog
          id={open}
          workspaceName={workspaceName}
          onClose={(changed) => {
            setOpen(undefined);
            if (changed) keys.reload();
          }}
        />
      ) : null}
    </Page>
  );
}
