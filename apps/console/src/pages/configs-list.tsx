import { Link } from 'wouter-preact';
import { unwrap } from '../api/client.js';
import { can, isOrganisationLevel } from '../api/me.js';
import { formatTime } from '../components/format.js';
import { ListPager } from '../components/list-pager.js';
import { ListTable } from '../components/list-table.js';
import { Page } from '../components/page.js';
import { pageQuery, usePagedList } from '../components/paged-filters.js';
import { ACTIVE_SAVED, SavedFilterForm } from '../components/saved-filters.js';
import { useWorkspaceNames } from '../components/workspace-names.js';
import { useConsole } from '../context.js';

export const CONFIGS_PAGE_SIZE = 20;

export function ConfigsList() {
  const { api, me } = useConsole();
  const orgLevel = isOrganisationLevel(me);
  const workspaceName = useWorkspaceNames();
  const paged = usePagedList(
    ACTIVE_SAVED,
    async (f) =>
      unwrap(
        await api.GET('/configs', {
          params: {
            query: pageQuery(CONFIGS_PAGE_SIZE, f.page, { status: f.status, workspace_id: f.workspace }),
          },
        }),
      ),
    [api],
  );
  const { filters, setPage, list } = paged;
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
      <SavedFilterForm paged={paged} workspaceId="configs-workspace" allWorkspaces="All workspaces" />
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
            page={filters.page}
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
