import { Link } from 'wouter-preact';
import { can } from '../api/me.js';
import { ListPager } from '../components/list-pager.js';
import { ListTable } from '../components/list-table.js';
import { Page } from '../components/page.js';
import { pageQuery, usePagedList } from '../components/paged-filters.js';
import { ACTIVE_SAVED, SavedFilterForm } from '../components/saved-filters.js';
import { useWorkspaceNames } from '../components/workspace-names.js';
import { useConsole } from '../context.js';
import { listPolicies, policyScope } from './policies-api.js';
import type { PolicyKind } from './policies-body.js';
import { Conditions, GroupBy, limitText } from './policies-describe.js';
import { policiesHref } from './policies-href.js';

export const POLICIES_PAGE_SIZE = 20;
const TITLES = { usage: 'Usage limits', rate: 'Rate limits' } as const;

export function PoliciesList(props: { kind: PolicyKind }) {
  const { api, me } = useConsole();
  const workspaceName = useWorkspaceNames();
  const paged = usePagedList(
    ACTIVE_SAVED,
    (f) =>
      listPolicies(api, props.kind, {
        ...pageQuery(POLICIES_PAGE_SIZE, f.page, { workspace_id: f.workspace }),
        status: f.status,
      }),
    [api, props.kind],
  );
  const { filters, setPage, list } = paged;
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
      <SavedFilterForm
        paged={paged}
        workspaceId="policies-workspace"
        allWorkspaces="All (organisation-level too)"
      />
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
