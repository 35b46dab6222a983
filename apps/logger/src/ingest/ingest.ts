// The logger's consumers (requests, audit) on one NATS connection, and their lag.
import type { Logger } from '@aigw/runtime';
import { telemetryEnabled } from '@aigw/telemetry';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { Kysely } from 'kysely';
import type { Registry } from 'prom-client';
import type { LogsDatabase } from '../db/schema.js';
import type { LoggerStreams } from '../nats-names.js';
import { ingestMetrics } from './ingest-metrics.js';
import type { Sink } from './sink.js';
import { auditSink, requestSink } from './sinks.js';
import { type ConsumerSettings, type StreamConsumer, startStreamConsumer } from './stream-consumer.js';
import { tracedRequestSink } from './traced-request-sink.js';

export interface IngestOptions {
  readonly db: Kysely<LogsDatabase>;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly streams: LoggerStreams;
  readonly settings: ConsumerSettings;
  readonly maxDeliver: number;
  readonly registry: Registry;
  readonly log: Logger;
  /** Audit events are stored only when AUDIT_LOGS_ENABLED (they stay in the stream otherwise). */
  readonly audit: boolean;
}

export interface Ingest {
  stop(): Promise<void>;
}

/** Durable consumer names; one per stream, shared by every logger replica (work is split). */
export const CONSUMER_NAMES = {
  requests: 'logger-requests',
  audit: 'logger-audit',
} as const;

export async function startIngest(options: IngestOptions): Promise<Ingest> {
  const metrics = ingestMetrics(options.registry);
  const log = options.log.child({ component: 'ingest' });
  const consumers: { name: string; consumer: StreamConsumer }[] = [];
  const start = async <T>(stream: string, durable: string, sink: Sink<T>) => {
    const consumer = await startStreamConsumer({
      db: options.db,
      js: options.js,
      jsm: options.jsm,
      stream,
      durable,
      sink,
      settings: options.settings,
      maxDeliver: options.maxDeliver,
      metrics,
      log,
    });
    consumers.push({ name: sink.name, consumer });
  };
  try {
    const requests = telemetryEnabled() ? tracedRequestSink(requestSink) : requestSink;
    await start(options.streams.requests.name, CONSUMER_NAMES.requests, requests);
    if (options.audit) await start(options.streams.audit.name, CONSUMER_NAMES.audit, auditSink);
  } catch (err) {
    await Promise.all(consumers.map((c) => c.consumer.stop()));
    throw err;
  }
  const collectLag = async () => {
    await Promise.all(
      consumers.map(async ({ name, consumer }) => {
        const lag = await consumer.lag().catch(() => undefined);
        if (!lag) return;
        metrics.lag.set({ stream: name }, lag.pending);
        metrics.ackPending.set({ stream: name }, lag.ackPending);
      }),
    );
  };
  const timer = setInterval(() => void collectLag(), 5_000);
  timer.unref();
  void collectLag();
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(consumers.map((c) => c.consumer.stop()));
    },
  };
}
