// The Analytics page's headline figures as cards, from one GET /analytics/summary over the range.
import type { ApiPaths } from '../api/client.js';
import { formatMs, formatNumber, formatUsd } from '../components/format.js';
import { formatPercent } from './analytics-format.js';

type SummaryBody = ApiPaths['/analytics/summary']['get']['responses']['200']['content']['application/json'];

/** The summary's documented fields (docs/admin-api/logs.md); the schema types only the first two. */
export interface Summary {
  readonly requests: number;
  readonly cost: number;
  readonly tokens?: { input: number; output: number; total: number; cached_input: number };
  readonly avg_latency?: number;
  readonly p95_latency?: number;
  readonly p99_latency?: number;
  readonly error_count?: number;
  readonly success_rate?: number;
  readonly cache_hit_rate?: number;
  readonly users?: number;
  readonly feedback?: { count: number; avg_value: number | null };
}

export function asSummary(body: SummaryBody): Summary {
  return body as unknown as Summary;
}

interface Card {
  readonly id: string;
  readonly title: string;
  readonly value: string;
  readonly detail?: string;
}

function cards(s: Summary): Card[] {
  const errorRate = s.success_rate === undefined || s.requests === 0 ? undefined : 1 - s.success_rate;
  return [
    { id: 'requests', title: 'Requests', value: formatNumber(s.requests) },
    { id: 'cost', title: 'Cost', value: formatUsd(s.cost) },
    {
      id: 'tokens',
      title: 'Tokens',
      value: formatNumber(s.tokens?.total),
      detail: `${formatNumber(s.tokens?.input)} in · ${formatNumber(s.tokens?.output)} out`,
    },
    {
      id: 'latency',
      title: 'Latency (avg)',
      value: formatMs(s.avg_latency),
      detail: `p95 ${formatMs(s.p95_latency)} · p99 ${formatMs(s.p99_latency)}`,
    },
    {
      id: 'errors',
      title: 'Errors',
      value: formatNumber(s.error_count),
      detail: `${formatPercent(errorRate ?? 0)} of requests`,
    },
    { id: 'cache_hit_rate', title: 'Cache hit rate', value: formatPercent(s.cache_hit_rate) },
    { id: 'users', title: 'Users', value: formatNumber(s.users) },
    {
      id: 'feedback',
      title: 'Feedback',
      value: formatNumber(s.feedback?.count),
      detail:
        s.feedback?.avg_value === null || s.feedback?.avg_value === undefined
          ? 'no value yet'
          : `average ${s.feedback.avg_value.toFixed(2)}`,
    },
  ];
}

export function AnalyticsSummary({ summary }: { summary: Summary }) {
  return (
    <div class="analytics-cards">
      {cards(summary).map((card) => (
        <article key={card.id} class="analytics-card" data-testid={`summary-${card.id}`}>
          <small class="muted">{card.title}</small>
          <strong data-testid={`summary-${card.id}-value`}>{card.value}</strong>
          {card.detail ? <small class="muted">{card.detail}</small> : null}
        </article>
      ))}
    </div>
  );
}
