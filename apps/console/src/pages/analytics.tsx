// The Analytics page (issue 22): summary cards, graphs and a grouped table over a time range, all
// aggregated by the API (GET /analytics/summary, /analytics/graphs/{metric},
// /analytics/groups/{groupBy}). The range and the group-by live in the URL query, so a view can be
// shared and survives a reload. A workspace caller sees its workspace only: the API decides.
import { useMemo, useState } from 'preact/hooks';
import { useSearchParams } from 'wouter-preact';
import { ApiError, unwrap } from '../api/client.js';
import { ErrorBanner } from '../components/error-banner.js';
import { formatTime } from '../components/format.js';
import { Page } from '../components/page.js';
import { useApi } from '../components/use-api.js';
import { useConsole } from '../context.js';
import { AnalyticsCharts } from './analytics-charts.js';
import { AnalyticsGroups } from './analytics-groups.js';
import { type AnalyticsState, readState, timeQuery, writeState } from './analytics-query.js';
import { AnalyticsRange } from './analytics-range.js';
import { AnalyticsSummary, asSummary } from './analytics-summary.js';

export function AnalyticsPage() {
  const { api, me } = useConsole();
  const [search, setSearch] = useSearchParams();
  const state = readState(search);
  // A preset ends at the last refresh, the same instant for every call of the view.
  const [now, setNow] = useState(() => Date.now());
  const query = useMemo(() => timeQuery(state.range, now), [state.range, now]);
  const go = (next: Partial<AnalyticsState>) => setSearch(writeState({ ...state, ...next }));
  const summary = useApi(
    async () => asSummary(unwrap(await api.GET('/analytics/summary', { params: { query } }))),
    [api, query.start_time, query.end_time],
  );
  const rangeRefused = summary.error instanceof ApiError && summary.error.status === 400;
  return (
    <Page
      title="Analytics"
      actions={
        <button
          type="button"
          class="secondary outline"
          aria-busy={summary.loading}
          onClick={() => {
            setNow(Date.now());
            summary.reload();
          }}
        >
          Refresh
        </button>
      }
    >
      <p class="muted">
        {me.workspace ? `Workspace ${me.workspace.name}` : 'Every workspace'} · {formatTime(query.start_time)}{' '}
        to {formatTime(query.end_time)}
      </p>
      <AnalyticsRange
        range={state.range}
        covered={query}
        error={rangeRefused ? summary.error : undefined}
        onRange={(range) => {
          setNow(Date.now());
          go({ range, page: 0 });
        }}
      />
      {summary.error && !rangeRefused ? <ErrorBanner error={summary.error} /> : null}
      {summary.error ? null : (
        <>
          <section aria-label="summary" aria-busy={summary.loading && !summary.data}>
            {summary.data ? <AnalyticsSummary summary={summary.data} /> : null}
          </section>
          <AnalyticsCharts query={query} />
          <AnalyticsGroups
            query={query}
            groupBy={state.groupBy}
            page={state.page}
            onGroupBy={(groupBy) => go({ groupBy, page: 0 })}
            onPage={(page) => go({ page })}
          />
        </>
      )}
    </Page>
  );
}
