// The Analytics page's graphs: one GET /analytics/graphs/{metric} per series (the API buckets and
// aggregates; every bucket of the range is present), each chart loading on its own.
import { useMemo } from 'preact/hooks';
import type { ApiPaths } from '../api/client.js';
import { unwrap } from '../api/client.js';
import { ErrorBanner } from '../components/error-banner.js';
import { type ChartSeries, TimeChart } from '../components/time-chart.js';
import { useApi } from '../components/use-api.js';
import { useConsole } from '../context.js';
import { formatValue, unitOf } from './analytics-format.js';

type Metric = ApiPaths['/analytics/graphs/{metric}']['get']['parameters']['path']['metric'];
type Graph = ApiPaths['/analytics/graphs/{metric}']['get']['responses']['200']['content']['application/json'];

interface ChartSpec {
  readonly id: string;
  readonly title: string;
  readonly series: readonly (readonly [Metric, string])[];
}

export const CHARTS: readonly ChartSpec[] = [
  { id: 'requests', title: 'Requests', series: [['requests', 'Requests']] },
  { id: 'cost', title: 'Cost (USD)', series: [['cost', 'Cost']] },
  { id: 'tokens', title: 'Tokens', series: [['tokens', 'Tokens']] },
  {
    id: 'latency',
    title: 'Latency',
    series: [
      ['latency', 'average'],
      ['p50_latency', 'p50'],
      ['p95_latency', 'p95'],
      ['p99_latency', 'p99'],
    ],
  },
  { id: 'errors', title: 'Errors', series: [['errors', 'Errors']] },
  { id: 'error_rate', title: 'Error rate', series: [['error_rate', 'Error rate']] },
  { id: 'cache_hit_rate', title: 'Cache hit rate', series: [['cache_hit_rate', 'Cache hit rate']] },
];

export interface TimeFilter {
  readonly start_time: string;
  readonly end_time: string;
}

export function AnalyticsCharts(props: { query: TimeFilter }) {
  return (
    <div class="analytics-charts">
      {CHARTS.map((spec) => (
        <AnalyticsChart key={spec.id} spec={spec} query={props.query} />
      ))}
    </div>
  );
}

function AnalyticsChart({ spec, query }: { spec: ChartSpec; query: TimeFilter }) {
  const { api } = useConsole();
  const graphs = useApi(
    () =>
      Promise.all(
        spec.series.map(async ([metric]) =>
          unwrap(await api.GET('/analytics/graphs/{metric}', { params: { path: { metric }, query } })),
        ),
      ),
    [api, spec, query.start_time, query.end_time],
  );
  const data = graphs.data;
  const unit = unitOf(data?.[0]?.unit ?? 'count');
  const format = useMemo(() => (value: number) => formatValue(value, unit), [unit]);
  const chart = useMemo(() => (data ? toChart(spec, data) : undefined), [spec, data]);
  return (
    <figure class="analytics-chart" data-testid={`chart-${spec.id}`} aria-busy={graphs.loading}>
      <figcaption>
        <span>{spec.title}</span>
        {data ? (
          <strong data-testid={`chart-${spec.id}-total`}>
            {data.length === 1
              ? formatValue(data[0]?.total, unit)
              : data.map((g, i) => `${spec.series[i]?.[1]} ${formatValue(g.total, unit)}`).join(' · ')}
          </strong>
        ) : null}
      </figcaption>
      <ErrorBanner error={graphs.error} />
      {chart ? (
        <TimeChart
          label={`${spec.title} per ${data?.[0]?.bucket ?? 'bucket'}`}
          timestamps={chart.timestamps}
          series={chart.series}
          format={format}
          integer={unit === 'count'}
        />
      ) : (
        <div class="time-chart" />
      )}
    </figure>
  );
}

/** The graphs of one chart share their buckets (same range, same bucket chosen by the API). */
function toChart(spec: ChartSpec, graphs: readonly Graph[]): { timestamps: number[]; series: ChartSeries[] } {
  const timestamps = (graphs[0]?.data_points ?? []).map((p) => Date.parse(p.timestamp));
  const series = graphs.map((g, i) => ({
    label: spec.series[i]?.[1] ?? g.metric,
    values: g.data_points.map((p) => p.value),
  }));
  return { timestamps, series };
}
