// The Feedback page (issue 22): GET /v1/feedback with its filters and page in the URL query, cursor
// paging; each item links to the request logs of its trace.
import { Link } from 'wouter-preact';
import { type ApiPaths, unwrap } from '../api/client.js';
import { can, isOrganisationLevel } from '../api/me.js';
import { formatMetadata, formatTime } from '../components/format.js';
import { UrlListPage } from '../components/url-list-page.js';
import { useApi } from '../components/use-api.js';
import { useUrlQuery } from '../components/use-url-query.js';
import { useConsole } from '../context.js';
import { FEEDBACK_PAGE_SIZE, feedbackFilterFields, feedbackQuery } from './feedback-filters.js';

type FeedbackQuery = NonNullable<ApiPaths['/feedback']['get']['parameters']['query']>;

export function FeedbackPage() {
  const { api, me } = useConsole();
  const url = useUrlQuery('/feedback');
  const organisationLevel = isOrganisationLevel(me);
  const feedback = useApi(
    async () =>
      unwrap(
        await api.GET('/feedback', {
          params: { query: feedbackQuery(url.params, Date.now(), organisationLevel) as FeedbackQuery },
        }),
      ),
    [url.search],
  );
  const rows = feedback.data?.data ?? [];
  const logsVisible = can(me, 'logs.list');
  return (
    <UrlListPage
      title="Feedback"
      url={url}
      fields={feedbackFilterFields(organisationLevel)}
      loaded={feedback}
      defaultPageSize={FEEDBACK_PAGE_SIZE}
      testId="feedback-table"
      class="striped"
      columns={[
        'Given',
        'Trace ID',
        'Value',
        'Weight',
        'Metadata',
        'By',
        organisationLevel && 'Workspace',
        'Updated',
      ]}
      empty="No feedback matches these filters."
    >
      {rows.map((f) => (
        <tr key={f.id} data-testid="feedback-row">
          <td>{formatTime(f.created_at)}</td>
          <td>
            {logsVisible ? (
              <Link
                href={`/logs?trace_id=${encodeURIComponent(f.trace_id)}`}
                title="The request logs of this trace"
              >
                <code class="trace-id">{f.trace_id}</code>
              </Link>
            ) : (
              <code class="trace-id">{f.trace_id}</code>
            )}
          </td>
          <td>
            <span class={f.value < 0 ? 'status status-error' : 'status status-ok'}>{f.value}</span>
          </td>
          <td>{f.weight}</td>
          <td>{formatMetadata(f.metadata)}</td>
          <td>{f.created_by.display_name ?? f.created_by.type}</td>
          {organisationLevel ? (
            <td>
              <code class="trace-id">{f.workspace_id ?? '–'}</code>
            </td>
          ) : null}
          <td>{formatTime(f.last_updated_at)}</td>
        </tr>
      ))}
    </UrlListPage>
  );
}
