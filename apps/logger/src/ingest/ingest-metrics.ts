// Prometheus metrics of the ingest: events by outcome, batch latency, errors and consumer lag.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface IngestMetrics {
  readonly events: Counter<'stream' | 'outcome'>;
  readonly messages: Counter<'stream'>;
  readonly redelivered: Counter<'stream'>;
  readonly batchSeconds: Histogram<'stream'>;
  readonly errors: Counter<'stream'>;
  readonly lag: Gauge<'stream'>;
  readonly ackPending: Gauge<'stream'>;
}

const cache = new WeakMap<Registry, IngestMetrics>();

/** One set per registry (an app may build several consumers on the same registry). */
export function ingestMetrics(registry: Registry): IngestMetrics {
  const existing = cache.get(registry);
  if (existing) return existing;
  const registers = [registry];
  const metrics: IngestMetrics = {
    events: new Counter({
      name: 'logger_ingest_events_total',
      help: 'Events read from JetStream, by stream and outcome (inserted, duplicate, dead_letter)',
      labelNames: ['stream', 'outcome'] as const,
      registers,
    }),
    messages: new Counter({
      name: 'logger_ingest_messages_total',
      help: 'JetStream messages acknowledged after their events were stored',
      labelNames: ['stream'] as const,
      registers,
    }),
    redelivered: new Counter({
      name: 'logger_ingest_redelivered_messages_total',
      help: 'Messages received again (a previous delivery was not acknowledged: crash, stop, timeout)',
      labelNames: ['stream'] as const,
      registers,
    }),
    batchSeconds: new Histogram({
      name: 'logger_ingest_batch_seconds',
      help: 'Time from fetching a batch of messages to acknowledging it',
      labelNames: ['stream'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    errors: new Counter({
      name: 'logger_ingest_errors_total',
      help: 'Failed attempts to store a batch (it is held and retried, not acknowledged)',
      labelNames: ['stream'] as const,
      registers,
    }),
    lag: new Gauge({
      name: 'logger_ingest_consumer_pending_messages',
      help: 'Messages in the stream not yet delivered to the logger consumer (consumer lag)',
      labelNames: ['stream'] as const,
      registers,
    }),
    ackPending: new Gauge({
      name: 'logger_ingest_consumer_ack_pending_messages',
      help: 'Messages delivered to the logger and not yet acknowledged',
      labelNames: ['stream'] as const,
      registers,
    }),
  };
  cache.set(registry, metrics);
  return metrics;
}
