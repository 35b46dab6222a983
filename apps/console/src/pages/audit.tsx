// The Audit log page (issue 22): GET /v1/audit-logs with its filters and page in the URL query,
// cursor paging; a record opens in place with everything it holds (request details as JSON).
import { useState } from 'preact/hooks';
import { type ApiPaths, unwrap } from '../api/client.js';
import { isOrganisationLevel } from '../api/me.js';
import { formatTime } from '../components/format.js';
import { UrlListPage } from '../components/url-list-page.js';
import { useApi } from '../components/use-api.js';
import { useUrlQuery } from '../components/use-url-query.js';
import { useConsole } from '../context.js';
import { type AuditRecord, AuditRecordDetail } from './audit-detail.js';
import { AUDIT_PAGE_SIZE, auditFilterFields, auditQuery } from './audit-filters.js';

type AuditQuery = NonNullable<ApiPaths['/audit-logs']['get']['parameters']['query']>;

export function AuditPage() {
  const { api, me } = useConsole();
  const url = useUrlQuery('/audit');
  const organisationLevel = isOrganisationLevel(me);
  const records = useApi(
    async () =>
      unwrap(
        await api.GET('/audit-logs', {
          params: { query: auditQuery(url.params, Date.now(), organisationLevel) as AuditQuery },
        }),
      ),
    [url.search],
  );
  const [open, setOpen] = useState<string | undefined>();
  const rows = (records.data?.data ?? []) as unknown as AuditRecord[];
  return (
    <UrlListPage
      title="Audit log"
      url={url}
      fields={auditFilterFields(organisationLevel)}
      loaded={records}
      defaultPageSize={AUDIT_PAGE_SIZE}
      testId="audit-table"
      class="striped audit-table"
      columns={['Time', 'Action', 'Resource', 'Actor', 'Outcome', 'IP']}
      hiddenColumn="Details"
      empty="No audit records match these filters."
    >
      {rows.map((r) => (
        <AuditRow
          key={r.id}
          record={r}
          open={open === r.id}
          toggle={() => setOpen((o) => (o === r.id ? undefined : r.id))}
        />
      ))}
    </UrlListPage>
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
