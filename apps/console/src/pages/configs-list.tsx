// The list of saved configs: one page at a time from GET /configs (server-side pagination), filtered
// by status and, for an organisation-level caller, by workspace.
import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { unwrap } from '../api/client.js';
import { can, isOrganisationLevel } from '../api/me.js';
import { FilterSelect, STATUSES } from '../components/filter-select.js';
import { formatTime } from '../components/format.js';
import { ListPager } from '../components/list-pager.js';
import { ListTable } from '../components/list-table.js';
import { Page } from '../components/page.js';
import { useApi } from '../components/use-api.js';
import { useWorkspaceNames } from '../components/workspace-names.js';
import { WorkspaceSelect } from '../components/workspace-select.js';
import { useConsole } from '../context.js';

export const CONFIGS_PAGE_SIZE = 20;

export function ConfigsList() {
  const { api, me } = useConsole();
  const orgLevel = isOrganisationLevel(me);
  const [workspace, setWorkspace] = useState('');
  const [status, setStatus] = useState<'active' | 'archived'>('active');
  const [page, setPage] = useState(0);
  const workspaceName = useWorkspaceNames();
  const list = useApi(
    async () =>
      unwrap(
        await api.GET('/configs', {
          params: {
            query: {
              page_size: CONFIGS_PAGE_SIZE,
              current_page: page,
              status,
              ...(workspace ? { workspace_id: workspace } : {}),
            },
          },
        }),
      ),
    [api, workspace, status, page],
  );
  return (
    <Page
      title="Configs"
      actions={
        can(me, 'configs.create') ? (
          <Link href="/new" role="button">
            New config
          </Link>
        ) : null
      }
    >
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        {orgLevel ? (
          <WorkspaceSelect
            id="configs-workspace"
            label="Workspace"
            value={workspace}
            onChange={(value) => {
              setWorkspace(value);
              setPage(0);
            }}
            emptyLabel="All workspaces"
          />
        ) : null}
        <FilterSelect
          label="Status"
          value={status}
          options={STATUSES}
          onChange={(value) => {
            setStatus(value as 'active' | 'archived');
            setPage(0);
          }}
        />
      </form>
      <ListTable
        testId="configs-table"
        class="striped"
        columns={['Name', 'Slug', orgLevel && 'Workspace', 'Version', 'Status', 'Last updated']}
        loading={list.loading}
        error={list.error}
        rows={list.data?.data}
        empty="No configs here yet."
        pager={
          <ListPager
            page={page}
            pageSize={CONFIGS_PAGE_SIZE}
            total={list.data?.total}
            onPage={setPage}
            label="configs"
          />
        }
      >
        {list.data?.data.map((config) => (
          <tr key={config.id}>
            <td>
              <Link href={`/${config.id}`}>{config.name}</Link>
            </td>
            <td>
              <code>{config.slug}</code>
            </td>
            {orgLevel ? <td>{workspaceName(config.workspace_id)}</td> : null}
            <td>{config.version}</td>
            <td>{config.status}</td>
            <td>{formatTime(config.last_updated_at)}</td>
          </tr>
        ))}
      </ListTable>
    </Page>
  );
}
