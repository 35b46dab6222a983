import { Link } from 'wouter-preact';
import { can, isOrganisationLevel } from '../api/me.js';
import { FilterSelect, STATUSES } from '../components/filter-select.js';
import { ListPager } from '../components/list-pager.js';
import { ListTable } from '../components/list-table.js';
import { Page } from '../components/page.js';
import { ACTIVE_SAVED, pageQuery, type SavedFilters, usePagedList } from '../components/paged-filters.js';
import { useWorkspaceNames } from '../components/workspace-names.js';
import { WorkspaceSelect } from '../components/workspace-select.js';
import { useConsole } from '../context.js';
import { listPolicies, policyScope } from './policies-api.js';
import type { PolicyKind } from './policies-body.js';
import { Conditions, GroupBy, limitText } from './policies-describe.js';
import { policiesHref } from './policies-href.js';

export const POLICIES_PAGE_SIZE = 20;
const TITLES = { usage: 'Usage limits', rate: 'Rate limits' } as const;

export function PoliciesList(props: { kind: PolicyKind }) {
  const { api, me } = useConsole();
  const orgLevel = isOrganisationLevel(me);
  const workspaceName = useWorkspaceNames();
  const { filters, filter, setPage, list } = usePagedList(
    ACTIVE_SAVED,
    (f) =>
      listPolicies(api, props.kind, {
        ...pageQuery(POLICIES_PAGE_SIZE, f.page, { workspace_id: f.workspace }),
        status: f.status,
      }),
    [api, props.kind],
  );
  const rate = can(me, 'rate_limits_policies.list');
  return (
    <Page
      title="Policies"
      actions={
        can(me, policyScope(props.kind, 'create')) ? (
          <Link href={policiesHref(props.kind, 'new')} role="button">
            New {props.kind === 'usage' ? 'usage-limit' : 'rate-limit'} policy
          </Link>
        ) : null
      }
    >
      {rate ? (
        <nav class="tabs" aria-label="policy kinds">
          <ul>
            {(['usage', 'rate'] as const).map((kind) => (
              <li key={kind}>
                <Link
                  href={policiesHref(kind)}
                  class={kind === props.kind ? 'active' : ''}
                  aria-current={kind === props.kind ? 'page' : undefined}
                >
                  {TITLES[kind]}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      ) : null}
      <h3>{TITLES[props.kind]}</h3>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        {orgLevel ? (
          <WorkspaceSelect
            id="policies-workspace"
            label="Workspace"
            value={filters.workspace}
            onChange={(workspace) => filter({ workspace })}
            emptyLabel="All (organisation-level too)"
          />
        ) : null}
        <FilterSelect
          label="Status"
          value={filters.status}
          options={STATUSES}
          onChange={(status) => filter({ status: status as SavedFilters['status'] })}
        />
      </form>
      <ListTable
        testId="policies-table"
        class="striped"
        columns={['Name', 'Limit', 'Conditions', 'Group by', 'Applies to', 'Status']}
        loading={list.loading}
        error={list.error}
        rows={list.data?.data}
        empty="No policies here yet."
        pager={
          <ListPager
            page={filters.page}
            pageSize={POLICIES_PAGE_SIZE}
            total={list.data?.total}
            onPage={setPage}
            label="policies"
          />
        }
      >
        {list.data?.data.map((policy) => (
          <tr key={policy.id}>
            <td>
              <Link href={policiesHref(props.kind, { id: policy.id })}>{policy.name}</Link>
            </td>
            <td>{limitText(policy)}</td>
            <td>
              <Conditions policy={policy} workspaceName={workspaceName} />
            </td>
            <td>
              <GroupBy policy={policy} />
            </td>
            <td>{policy.workspace_id === null ? 'the organisation' : workspaceName(policy.workspace_id)}</td>
            <td>{policy.status}</td>
          </tr>
        ))}
      </ListTable>
    </Page>
  );
}
