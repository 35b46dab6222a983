// The Providers page (issue 22): each workspace's providers (GET /providers, filtered by workspace,
// type and status, paginated by the API), the names requests use as `@slug`; create one from an
// integration the workspace may use, edit its limits, models, expiry and status, delete it. The
// legacy virtual keys view of the same records is a second tab.
import { useState } from 'preact/hooks';
import { unwrap } from '../api/client.js';
import { can, isOrganisationLevel } from '../api/me.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { FilterSelect } from '../components/filter-select.js';
import { formatTime } from '../components/format.js';
import { describeRate, describeUsage } from '../components/limits-form.js';
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
import { useWorkspaceNames } from '../components/workspace-names.js';
import { WorkspaceSelect } from '../components/workspace-select.js';
import { useConsole } from '../context.js';
import { type Provider, ProviderDialog } from './providers-dialog.js';
import { VirtualKeysList } from './providers-virtual-keys.js';

const PAGE_SIZE = 25;

export function ProvidersPage() {
  const { api, me } = useConsole();
  const [tab, setTab] = useState<'providers' | 'virtual-keys'>('providers');
  const { filters, filter, setPage, list } = usePagedList(NO_PROVIDER_FILTERS, async (f) =>
    unwrap(await api.GET('/providers', { params: { query: providerListQuery(PAGE_SIZE, f) } })),
  );
  const { dialog, open, closed } = useListDialog<
    { kind: 'create' } | { kind: 'edit'; provider: Provider } | { kind: 'delete'; provider: Provider }
  >(list);
  const workspaceName = useWorkspaceNames();
  const rows = list.data?.data ?? [];
  const showVirtualKeys = can(me, 'virtual_keys.list');
  return (
    <Page
      title="Providers"
      actions={
        can(me, 'providers.create') && tab === 'providers' ? (
          <button type="button" onClick={() => open({ kind: 'create' })}>
            Create provider
          </button>
        ) : null
      }
    >
      {showVirtualKeys ? (
        <nav class="inline-group tabs" aria-label="views">
          <button
            type="button"
            class={tab === 'providers' ? '' : 'secondary outline'}
            aria-pressed={tab === 'providers'}
            onClick={() => setTab('providers')}
          >
            Providers
          </button>
          <button
            type="button"
            class={tab === 'virtual-keys' ? '' : 'secondary outline'}
            aria-pressed={tab === 'virtual-keys'}
            onClick={() => setTab('virtual-keys')}
          >
            Virtual keys (legacy)
          </button>
        </nav>
      ) : null}
      <form class="filters" aria-label="filters" onSubmit={(e) => e.preventDefault()}>
        {isOrganisationLevel(me) ? (
          <WorkspaceSelect
            label="Workspace"
            emptyLabel="All workspaces"
            value={filters.workspace}
            onChange={(workspace) => filter({ workspace })}
          />
        ) : null}
        {tab === 'providers' ? (
          <>
            <ProviderTypeFilter value={filters.type} onChange={(type) => filter({ type })} />
            <FilterSelect
              label="Status"
              value={filters.status}
              anyLabel="Any status"
              options={['active', 'disabled', 'expired']}
              onChange={(status) => filter({ status })}
            />
          </>
        ) : null}
      </form>
      {tab === 'virtual-keys' ? (
        <VirtualKeysList workspace={filters.workspace} workspaceName={workspaceName} />
      ) : (
        <ListTable
          testId="providers-table"
          columns={['Provider', 'Name', 'Type', 'Workspace', 'Status', 'Limits', 'Expires', 'Created']}
          hiddenColumn="Actions"
          loading={list.loading}
          error={list.error}
          rows={list.data?.data}
          empty="No provider matches these filters."
          pager={
            <ListPager page={filters.page} pageSize={PAGE_SIZE} total={list.data?.total} onPage={setPage} />
          }
        >
          {rows.map((p) => (
            <tr key={p.id} data-testid={`provider-${p.slug}`}>
              <td>
                <code>@{p.slug}</code>
              </td>
              <td>{p.name}</td>
              <td>{p.ai_provider}</td>
              <td>{workspaceName(p.workspace_id)}</td>
              <td>
                <span class={`status status-${p.status}`}>{p.status}</span>
              </td>
              <td>
                {[...p.rate_limits.map(describeRate), ...p.usage_limits.map(describeUsage)].join('; ') || (
                  <span class="muted">none</span>
                )}
              </td>
              <td>{p.expires_at ? formatTime(p.expires_at) : 'never'}</td>
              <td>{formatTime(p.created_at)}</td>
              <RowActions
                name={`@${p.slug}`}
                onEdit={can(me, 'providers.update') ? () => open({ kind: 'edit', provider: p }) : undefined}
                onDelete={
                  can(me, 'providers.delete') ? () => open({ kind: 'delete', provider: p }) : undefined
                }
              />
            </tr>
          ))}
        </ListTable>
      )}
      {dialog?.kind === 'create' ? <ProviderDialog onClose={closed} /> : null}
      {dialog?.kind === 'edit' ? <ProviderDialog existing={dialog.provider} onClose={closed} /> : null}
      {dialog?.kind === 'delete' ? (
        <ConfirmDialog
          title={`Delete provider "@${dialog.provider.slug}"?`}
          confirmLabel="Delete provider"
          danger
          onCancel={() => closed(false)}
          onConfirm={async () => {
            unwrap(
              await api.DELETE('/providers/{providerId}', {
                params: { path: { providerId: dialog.provider.id } },
              }),
            );
            closed(true);
          }}
        >
          <p>
            Requests naming <code>@{dialog.provider.slug}</code> in its workspace are refused from now on. The
            integration stays.
          </p>
        </ConfirmDialog>
      ) : null}
    </Page>
  );
}
