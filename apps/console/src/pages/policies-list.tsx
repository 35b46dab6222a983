// The policies of one kind, a page at a time (GET /policies/usage-limits or /rate-limits), filtered
// by status and, for an organisation-level caller, by workspace; tabs between the two kinds when the
// caller may list rate-limit policies too.
import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { can, isOrganisationLevel } from '../api/me.js';
import { FilterSelect, STATUSES } from '../components/filter-select.js';
import { ListPager } from '../components/list-pager.js';
import { ListTable } from '../components/list-table.js';
import { Page } from '../components/page.js';
import { useApi } from '../components/use-api.js';
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
  const [filter, setFilter] = useState({ workspace: '', status: 'active' as 'active' | 'archived', page: 0 });
  const list = useApi(
    () =>
      listPolicies(api, props.kind, {
        page_size: POLICIES_PAGE_SIZE,
        current_page: filter.page,
        status: filter.status,
        ...(filter.workspace ? { workspace_id: filter.workspace } : {}),
      }),
    [api, props.kind, filter],
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
            value={filter.workspace}
            onChange={(workspace) => setFilter({ ...filter, workspace, page: 0 })}
            emptyLabel="All (organisation-level too)"
          />
        ) : null}
        <FilterSelect
          label="Status"
          value={filter.status}
          options={STATUSES}
          onChange={(status) => setFilter({ ...filter, status: status as 'active' | 'archived', page: 0 })}
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
            page={filter.page}
            pageSize={POLICIES_PAGE_SIZE}
            total={list.data?.total}
            onPage={(page) => setFilter({ ...filter, page })}
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
