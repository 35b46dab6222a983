// The Analytics page's grouped table: GET /analytics/groups/{groupBy} over the range, one page at a
// time (the API aggregates and orders by request count; the browser never sees the rows).
import { unwrap } from '../api/client.js';
import { DataTable } from '../components/data-table.js';
import { ErrorBanner } from '../components/error-banner.js';
import { formatNumber, formatTime, formatUsd } from '../components/format.js';
import { PageButtons } from '../components/list-pager.js';
import { useApi } from '../components/use-api.js';
import { useConsole } from '../context.js';
import type { TimeFilter } from './analytics-charts.js';
import { formatPercent, formatValue, numeric } from './analytics-format.js';
import {
  GROUP_BY_NAMES,
  GROUP_BYS,
  GROUP_COLUMNS,
  GROUP_PAGE_SIZE,
  type GroupBy,
} from './analytics-query.js';

export interface AnalyticsGroupsProps {
  readonly query: TimeFilter;
  readonly groupBy: GroupBy;
  readonly page: number;
  onGroupBy(groupBy: GroupBy): void;
  onPage(page: number): void;
}

export function AnalyticsGroups(props: AnalyticsGroupsProps) {
  const { api } = useConsole();
  const { query, groupBy, page } = props;
  const groups = useApi(
    async () =>
      unwrap(
        await api.GET('/analytics/groups/{groupBy}', {
          params: {
            path: { groupBy },
            query: {
              ...query,
              columns: GROUP_COLUMNS.join(','),
              page_size: GROUP_PAGE_SIZE,
              current_page: page,
            },
          },
        }),
      ),
    [api, groupBy, page, query.start_time, query.end_time],
  );
  const total = groups.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / GROUP_PAGE_SIZE));
  return (
    <section class="analytics-groups" aria-labelledby="analytics-groups-title">
      <header class="page-header">
        <h3 id="analytics-groups-title">Breakdown</h3>
        <label class="analytics-group-by">
          Group by
          <select
            name="group_by"
            value={groupBy}
            onChange={(e) => props.onGroupBy((e.currentTarget as HTMLSelectElement).value as GroupBy)}
          >
            {GROUP_BY_NAMES.map((name) => (
              <option key={name} value={name}>
                {GROUP_BYS[name]}
              </option>
            ))}
          </select>
        </label>
      </header>
      <ErrorBanner error={groups.error} />
      <div class="overflow-auto">
        <DataTable
          class="striped"
          testId="groups"
          busy={groups.loading}
          columns={[
            GROUP_BYS[groupBy],
            'Requests',
            'Cost',
            'Tokens',
            'Avg latency',
            'p95',
            'p99',
            'Errors',
            'Success',
            'Cache hits',
            'Last seen',
          ]}
        >
          {(groups.data?.data ?? []).map((row) => (
            <tr key={row.key} data-testid="group-row">
              <th scope="row">{row.key === '' ? <span class="muted">(none)</span> : row.key}</th>
              <td>{formatNumber(row.request_count)}</td>
              <td>{formatUsd(numeric(row.cost))}</td>
              <td>{formatNumber(numeric(row.total_tokens))}</td>
              <td>{formatValue(numeric(row.avg_latency), 'ms')}</td>
              <td>{formatValue(numeric(row.p95_latency), 'ms')}</td>
              <td>{formatValue(numeric(row.p99_latency), 'ms')}</td>
              <td>{formatNumber(numeric(row.error_count))}</td>
              <td>{formatPercent(numeric(row.success_rate))}</td>
              <td>{formatPercent(numeric(row.cache_hit_rate))}</td>
              <td>{typeof row.last_seen === 'string' ? formatTime(row.last_seen) : '–'}</td>
            </tr>
          ))}
          {groups.data && groups.data.data.length === 0 ? (
            <tr>
              <td colSpan={11} class="muted">
                No requests in this range.
              </td>
            </tr>
          ) : null}
        </DataTable>
      </div>
      {pages > 1 ? (
        <nav class="analytics-pager" aria-label="group pages">
          <PageButtons page={page} pages={pages} onPage={props.onPage}>
            <small>
              Page {page + 1} of {pages} ({formatNumber(total)} groups)
            </small>
          </PageButtons>
        </nav>
      ) : null}
    </section>
  );
}
