// The request log list: GET /v1/logs with the filters and page kept in the URL query, a trace id
// search, server-side cursor paging; a row opens the request's detail.
import { useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import { ApiError, unwrap } from '../api/client.js';
import { isOrganisationLevel } from '../api/me.js';
import { formatMs, formatNumber, formatTime, formatUsd } from '../components/format.js';
import { UrlListPage } from '../components/url-list-page.js';
import { fieldOfParam } from '../components/url-query.js';
import { useApi } from '../components/use-api.js';
import { useUrlQuery } from '../components/use-url-query.js';
import { useConsole } from '../context.js';
import { DEFAULT_PAGE_SIZE, LOGS_PATH, logFilterFields, logsQuery } from './logs-filters.js';
import type { LogRow, LogsQuery } from './logs-types.js';

export function LogsList() {
  const { api, me } = useConsole();
  const url = useUrlQuery(LOGS_PATH);
  const { search, params } = url;
  const organisationLevel = isOrganisationLevel(me);
  const logs = useApi(
    async () =>
      unwrap(
        await api.GET('/logs', {
          // The URL's values as the API takes them (strings); the API validates every one.
          params: { query: logsQuery(params, Date.now(), organisationLevel) as LogsQuery },
        }),
      ),
    [search],
  );
  const rows = logs.data?.data ?? [];
  const apiError = logs.error instanceof ApiError ? logs.error : undefined;
  const errorField = fieldOfParam(apiError?.param);
  return (
    <UrlListPage
      title="Logs"
      url={url}
      fields={logFilterFields(organisationLevel)}
      fieldParams={['trace_id']}
      loaded={logs}
      defaultPageSize={DEFAULT_PAGE_SIZE}
      before={
        <TraceSearch
          key={params.get('trace_id') ?? ''}
          value={params.get('trace_id') ?? ''}
          error={errorField === 'trace_id' ? apiError?.message : undefined}
          onSearch={(traceId) => url.set('trace_id', traceId)}
        />
      }
      testId="logs-table"
      class="logs-table striped"
      columns={['Time', 'Status', 'Provider', 'Model', 'Tokens', 'Cost', 'Latency', 'Trace ID', 'Cache']}
      empty="No request logs match these filters."
      emptyTestId="logs-empty"
    >
      {rows.map((log) => (
        <LogRowView key={log.id} log={log} href={`/${log.id}${search ? `?${search}` : ''}`} />
      ))}
    </UrlListPage>
  );
}

function TraceSearch(props: { value: string; error: string | undefined; onSearch(traceId: string): void }) {
  // Keyed by the URL's trace id: a link or the back button puts that value back in the box.
  const [text, setText] = useState(props.value);
  return (
    <search>
      <form
        class="trace-search"
        onSubmit={(e) => {
          e.preventDefault();
          props.onSearch(text.trim());
        }}
      >
        {/* biome-ignore lint/a11y/noRedundantRoles: Pico CSS joins an input and its button by role="group" */}
        <fieldset role="group">
          <input
            type="search"
            name="trace_id"
            aria-label="Trace ID"
            placeholder="Find a request by its trace id"
            value={text}
            spellcheck={false}
            autocomplete="off"
            aria-invalid={props.error ? 'true' : undefined}
            aria-describedby={props.error ? 'trace-search-error' : undefined}
            onInput={(e) => setText((e.target as HTMLInputElement).value)}
          />
          <button type="submit">Search</button>
        </fieldset>
        {props.error ? <small id="trace-search-error">{props.error}</small> : null}
      </form>
    </search>
  );
}

function LogRowView({ log, href }: { log: LogRow; href: string }) {
  const [, navigate] = useLocation();
  const error = log.status_code >= 400;
  return (
    <tr class="clickable" data-testid="log-row" onClick={() => navigate(href)}>
      <td>
        <Link href={href} onClick={(e: Event) => e.stopPropagation()}>
          {formatTime(log.created_at)}
        </Link>
      </td>
      <td>
        <span class={error ? 'status status-error' : 'status status-ok'}>{log.status_code}</span>
      </td>
      <td>{log.provider ?? '–'}</td>
      <td>{log.mcp?.tool ?? log.model ?? '–'}</td>
      <td title={`${log.tokens.input} in / ${log.tokens.output} out`}>{formatNumber(log.tokens.total)}</td>
      <td>{formatUsd(log.cost)}</td>
      <td>{formatMs(log.latency_ms)}</td>
      <td>
        <code class="trace-id">{log.trace_id ?? '–'}</code>
      </td>
      <td>{log.cache_status}</td>
    </tr>
  );
}
