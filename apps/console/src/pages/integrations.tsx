// The Integrations page (issue 22): the organisation's provider accounts (GET /integrations,
// filtered by type, status and workspace, paginated by the API), with their credentials as the API
// returns them (masked); create, edit (credentials re-typed or kept), workspace access, delete.
import { useState } from 'preact/hooks';
import { unwrap } from '../api/client.js';
import { can } from '../api/me.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { FilterSelect } from '../components/filter-select.js';
import { formatTime } from '../components/format.js';
import { ListPager } from '../components/list-pager.js';
import { ListTable, RowActions } from '../components/list-table.js';
import { Page } from '../components/page.js';
import { usePagedList } from '../components/paged-filters.js';
import {
  NO_PROVIDER_FILTERS,
  ProviderTypeFilter,
  providerListQuery,
} from '../components/provider-filters.js';
import { useListDialog } from '../components/use-list-dialog.js';
import { WorkspaceSelect } from '../components/workspace-select.js';
import { useConsole } from '../context.js';
import { type Integration, IntegrationDialog } from './integrations-dialog.js';
import { maskedEntries } from './integrations-form.js';

const PAGE_SIZE = 25;

export function IntegrationsPage() {
  const { api, me } = useConsole();
  const { filters, filter, setPage, list } = usePagedList(NO_PROVIDER_FILTERS, async (f) =>
    unwrap(await api.GET('/integrations', { params: { query: providerListQuery(PAGE_SIZE, f) } })),
  );
  const { dialog, open, closed } = useListDialog<
    | { kind: 'create' }
    | { kind: 'edit'; integration: Integration; workspaces: string[] }
    | { kind: 'delete'; integration: Integration }
  >(list);
  const [actionError, setActionError] = useState<Error | undefined>();
  const edit = async (integration: Integration) => {
    setActionError(undefined);
    try {
      const entries = unwrap(
        await api.GET('/integrations/{integrationId}/workspaces', {
          params: { path: { integrationId: integration.id } },
        }),
      );
      open({
        kind: 'edit',
        integration,
        workspaces: entries.data.filter((w) => w.enabled).map((w) => w.id),
      });
    } catch (err) {
      setActionError(err instanceof Error ? err : new Error(String(err)));
    }
  };
  const rows = list.data?.data ?? [];
  return (
    <Page
      title="Integrations"
      actions={
        can(me, 'integrations.create') ? (
          <button type="button" onClick={() => open({ kind: 'create' })}>
            Create integration
          </button>
        ) : null
      }
    >
      <p class="muted">
        An integration is a provider account of the organisation (type, credentials, options). Workspaces
        given access reach it through their providers, as <code>x-service-provider: @slug</code>.
      </p>
      <form class="filters" aria-label="filters" onSubmit={(e) => e.preventDefault()}>
        <ProviderTypeFilter name="ai_provider" value={filters.type} onChange={(type) => filter({ type })} />
        <FilterSelect
          label="Status"
          name="status"
          value={filters.status}
          anyLabel="Any status"
          options={['active', 'disabled']}
          onChange={(status) => filter({ status })}
        />
        <WorkspaceSelect
          label="Usable by workspace"
          emptyLabel="Any workspace"
          value={filters.workspace}
          onChange={(workspace) => filter({ workspace })}
        />
      </form>
      <ListTable
        testId="integrations-table"
        columns={['Name', 'Slug', 'Type', 'Status', 'Credentials', 'Options', 'Workspaces', 'Created']}
        hiddenColumn="Actions"
        loading={list.loading}
        error={list.error ?? actionError}
        rows={list.data?.data}
        empty="No integration matches these filters."
        pager={
          <ListPager page={filters.page} pageSize={PAGE_SIZE} total={list.data?.total} onPage={setPage} />
        }
      >
        {rows.map((i) => (
          <tr key={i.id} data-testid={`integration-${i.slug}`}>
            <td>{i.name}</td>
            <td>
              <code>{i.slug}</code>
            </td>
            <td>{i.ai_provider}</td>
            <td>
              <span class={`status status-${i.status}`}>{i.status}</span>
            </td>
            <td data-testid="integration-credentials">
              {maskedEntries(i.credentials).map(([name, value]) => (
                <div key={name}>
                  {name} <code>{value}</code>
                </div>
              ))}
              {i.credentials === null ? <span class="muted">none</span> : null}
            </td>
            <td>
              {Object.entries(i.options).map(([name, value]) => (
                <div key={name}>
                  {name} <code>{typeof value === 'string' ? value : JSON.stringify(value)}</code>
                </div>
              ))}
            </td>
            <td>{i.allow_all_workspaces ? 'all' : i.workspaces.filter((w) => w.enabled).length}</td>
            <td>{formatTime(i.created_at)}</td>
            <RowActions
              name={i.name}
              onEdit={
                can(me, 'integrations.update') && can(me, 'integrations.read') ? () => edit(i) : undefined
              }
              onDelete={
                can(me, 'integrations.delete') ? () => open({ kind: 'delete', integration: i }) : undefined
              }
            />
          </tr>
        ))}
      </ListTable>
      {dialog?.kind === 'create' ? <IntegrationDialog onClose={closed} /> : null}
      {dialog?.kind === 'edit' ? (
        <IntegrationDialog
          existing={{ integration: dialog.integration, workspaces: dialog.workspaces }}
          onClose={closed}
        />
      ) : null}
      {dialog?.kind === 'delete' ? (
        <ConfirmDialog
          title={`Delete "${dialog.integration.name}"?`}
          confirmLabel="Delete integration"
          danger
          onCancel={() => closed(false)}
          onConfirm={async () => {
            unwrap(
              await api.DELETE('/integrations/{integrationId}', {
                params: { path: { integrationId: dialog.integration.id } },
              }),
            );
            closed(true);
          }}
        >
          <p>
            The integration <strong>and every provider made from it</strong> are deleted; gateways stop using
            them at once. This cannot be undone.
          </p>
        </ConfirmDialog>
      ) : null}
    </Page>
  );
}
