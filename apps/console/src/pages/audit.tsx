// The Audit log page (issue 22): GET /v1/audit-logs with its filters and page in the URL query,
// cursor paging; a record opens in place with everything it holds (request details as JSON).
import { useState } from 'preact/hooks';
import { type ApiPaths, unwrap } from '../api/client.js';
import { isOrganisationLevel } from '../api/me.js';
import { CursorPager, PAGE_SIZES } from '../components/cursor-pager.js';
import { formatTime } from '../components/format.js';
import { ListTable } from '../components/list-table.js';
import { Page } from '../components/page.js';
import { errorShownByField, filterNames, UrlFilterForm } from '../components/url-filter-form.js';
import { pageSizeOf, withFilters } from '../components/url-query.js';
import { useApi } from '../components/use-api.js';
import { useUrlQuery } from '../components/use-url-query.js';
import { useConsole } from '../context.js';
import { type AuditRecord, AuditRecordDetail } from './audit-detail.js';
import { AUDIT_PAGE_SIZE, auditFilterFields, auditQuery } from './audit-filters.js';

type AuditQuery = NonNullable<ApiPaths['/audit-logs']['get']['parameters']['query']>;

export function AuditPage() {
  const { api, me } = useConsole();
  const { search, params, go, set } = useUrlQuery('/audit');
  const organisationLevel = isOrganisationLevel(me);
  const fields = auditFilterFields(organisationLevel);
  const names = filterNames(fields, true);
  const records = useApi(
    async () =>
      unwrap(
        await api.GET('/audit-logs', {
          params: { query: auditQuery(params, Date.now(), organisationLevel) as AuditQuery },
        }),
      ),
    [search],
  );
  const [open, setOpen] = useState<string | undefined>();
  const rows = (records.data?.data ?? []) as unknown as AuditRecord[];
  return (
    <Page
      title="Audit log"
      actions={
        <button type="button" class="secondary outline" onClick={records.reload} aria-busy={records.loading}>
          Refresh
        </button>
      }
    >
      <UrlFilterForm
        label="Filters"
        fields={fields}
        timeRange
        search={params}
        error={records.error}
        apply={(values) => go(withFilters(params, names, values))}
      />
      <ListTable
        testId="audit-table"
        class="striped audit-table"
        columns={['Time', 'Action', 'Resource', 'Actor', 'Outcome', 'IP']}
        hiddenColumn="Details"
        loading={records.loading}
        error={errorShownByField(records.error, names) ? undefined : records.error}
        rows={records.data ? rows : undefined}
        empty="No audit records match these filters."
        pager={
          <CursorPager
            cursor={params.get('cursor') ?? undefined}
            nextCursor={records.loading ? undefined : records.data?.next_cursor}
            pageSize={pageSizeOf(params, PAGE_SIZES, AUDIT_PAGE_SIZE)}
            shown={rows.length}
            go={(cursor) => set('cursor', cursor)}
            setPageSize={(size) => set('page_size', String(size))}
          />
        }
      >
        {rows.map((r) => (
          <AuditRow
            key={r.id}
            record={r}
            open={open === r.id}
            toggle={() => setOpen((o) => (o === r.id ? undefined : r.id))}
          />
        ))}
      </ListTable>
    </Page>
  );
}

function AuditRow(props: { record: AuditRecord; open: boolean; toggle(): void }) {
  const r = props.record;
  const failed = r.status !== 'success';
  return (
    <>
      <tr class="clickable" data-testid="audit-row" onClick={props.toggle}>
        <td>{formatTime(r.timestamp)}</td>
        <td>
          <code>{r.action}</code>
        </td>
        <td>
          {r.resource_type}
          {r.resource_id ? (
            <>
              {' '}
              <code class="trace-id">{r.resource_id}</code>
            </>
          ) : null}
        </td>
        <td>{r.actor.display_name ?? r.actor.type}</td>
        <td>
          <span class={failed ? 'status status-error' : 'status status-ok'}>
            {r.status} {r.status_code}
          </span>
        </td>
        <td>{r.ip ?? '–'}</td>
        <td>
          <button
            type="button"
            class="secondary outline compact"
            aria-expanded={props.open}
            onClick={(e) => {
              e.stopPropagation();
              props.toggle();
            }}
          >
            {props.open ? 'Hide' : 'Details'}
          </button>
        </td>
      </tr>
      {props.open ? (
        <tr class="detail-row">
          <td colSpan={7}>
            <AuditRecordDetail record={r} />
          </td>
        </tr>
      ) : null}
    </>
  );
}
