// The API keys page (issue 22): the keys the caller may see, filtered by type, status and
// workspace and paginated by the API (GET /api-keys); create a key (shown once), and a key's
// detail with edit, disable, rotate and revoke.
import { useState } from 'preact/hooks';
import { unwrap } from '../api/client.js';
import { can, isOrganisationLevel } from '../api/me.js';
import { FilterSelect } from '../components/filter-select.js';
import { formatTime } from '../components/format.js';
import { ListPager } from '../components/list-pager.js';
import { ListTable } from '../components/list-table.js';
import { Page } from '../components/page.js';
import { usePagedList } from '../components/paged-filters.js';
import { useWorkspaceNames } from '../components/workspace-names.js';
import { WorkspaceSelect } from '../components/workspace-select.js';
import { useConsole } from '../context.js';
import { CreateKeyDialog } from './api-keys-create.js';
import { KeyDetailDialog } from './api-keys-detail.js';
import { type KeyFilters, kindsFor, listQuery, PAGE_SIZE, TYPE_LABEL } from './api-keys-form.js';

export function ApiKeysPage() {
  const { api, me } = useConsole();
  const { filters, filter, setPage, list } = usePagedList(
    { type: '', status: '', workspace: '', page: 0 } as KeyFilters,
    async (f) => unwrap(await api.GET('/api-keys', { params: { query: listQuery(f) } })),
  );
  const [creating, setCreating] = useState(false);
  const [open, setOpen] = useState<string | undefined>();
  const workspaceName = useWorkspaceNames();
  const rows = list.data?.data ?? [];
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
        <FilterSelect
          label="Type"
          name="type"
          value={filters.type}
          anyLabel="All types"
          options={[
            ['admin', TYPE_LABEL.admin],
            ['service', TYPE_LABEL.service],
            ['workspace', TYPE_LABEL.workspace],
          ]}
          onChange={(type) => filter({ type: type as KeyFilters['type'] })}
        />
        <FilterSelect
          label="Status"
          name="status"
          value={filters.status}
          anyLabel="Any status"
          options={['active', 'disabled', 'expired']}
          onChange={(status) => filter({ status: status as KeyFilters['status'] })}
        />
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
        loading={list.loading}
        error={list.error}
        rows={list.data?.data}
        empty="No key matches these filters."
        pager={
          <ListPager page={filters.page} pageSize={PAGE_SIZE} total={list.data?.total} onPage={setPage} />
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
            if (created) list.reload();
          }}
        />
      ) : null}
      {open && can(me, 'api_keys.read') ? (
        <KeyDetailDialog
          id={open}
          workspaceName={workspaceName}
          onClose={(changed) => {
            setOpen(undefined);
            if (changed) list.reload();
          }}
        />
      ) : null}
    </Page>
  );
}
