// The logger's background work: partition maintenance and retention, the Redis usage reconcile
// (both on one replica at a time) and the JetStream ingest (on every replica, sharing the work; it
// starts once NATS answers, see app.ts).
import type { Closer, Logger } from '@aigw/runtime';
import { type JetStreamManager, jetstream } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { Registry } from 'prom-client';
import type { LoggerConfig } from './config.js';
import type { LogsDatabase } from './db/schema.js';
import { type Ingest, startIngest } from './ingest/ingest.js';
import { reconcileUsage } from './ledger/usage-reconcile.js';
import { dropExpiredPartitions, ensurePartitions } from './maintenance/partitions.js';
import { applyRetention } from './maintenance/retention.js';
import { startSingletonTask } from './maintenance/singleton-task.js';
import type { LoggerStreams } from './nats-names.js';

export interface BackgroundDeps {
  readonly config: LoggerConfig;
  readonly db: Kysely<LogsDatabase>;
  readonly log: Logger;
  readonly closer: Closer;
}

export interface IngestDeps {
  readonly config: LoggerConfig;
  readonly db: Kysely<LogsDatabase>;
  readonly nats: NatsConnection;
  readonly jsm: JetStreamManager;
  readonly streams: LoggerStreams;
  readonly registry: Registry;
  readonly log: Logger;
}

/** Runs maintenance once (partitions exist before the first insert), then starts the usage reconcile. */
export async function startBackground(deps: BackgroundDeps): Promise<void> {
  const { config, db, log, closer } = deps;
  const maintenance = startSingletonTask({
    db,
    name: 'maintenance',
    intervalMs: config.MAINTENANCE_INTERVAL_MS,
    log,
    run: async (conn) => {
      const now = Date.now();
      const created = await ensurePartitions(conn, now, config.PARTITIONS_AHEAD_DAYS);
      const dropped = await dropExpiredPartitions(conn, now, config.LOG_RETENTION_DAYS);
      const deleted = await applyRetention(conn, now, {
        logs: config.LOG_RETENTION_DAYS,
        metrics: config.METRICS_RETENTION_DAYS,
        exports: config.EXPORT_RETENTION_DAYS,
      });
      log.info({ created, dropped, deleted }, 'log maintenance done');
    },
  });
  closer.add('maintenance', () => maintenance.stop());
  // A failed run must not keep the logger from ingesting: rows of a day without its partition
  // wait in the default partition, and the next run retries.
  await maintenance.runNow().catch((err: unknown) => log.error({ err }, 'log maintenance failed'));

  if (config.REDIS_URL) {
    const redis = new Redis(config.REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 2 });
    redis.on('error', () => undefined); // reconnects; a failed reconcile is logged by the task
    closer.add('redis', async () => {
      await redis.quit().catch(() => redis.disconnect());
    });
    const reconcile = startSingletonTask({
      db,
      name: 'usage-reconcile',
      intervalMs: config.USAGE_RECONCILE_INTERVAL_MS,
      log,
      run: async (conn) => {
        const result = await reconcileUsage(conn, redis, { nowMs: Date.now() });
        if (result.raised > 0) log.info(result, 'usage counters raised from the ledger');
      },
    });
    closer.add('usage reconcile', () => reconcile.stop());
    reconcile.runNow().catch((err: unknown) => log.warn({ err }, 'usage reconcile failed'));
  }
}

/** Starts consuming the request and audit streams (they exist: the caller ensured them). */
export function startNatsIngest(deps: IngestDeps): Promise<Ingest> {
  const { config } = deps;
  return startIngest({
    db: deps.db,
    js: jetstream(deps.nats),
    jsm: deps.jsm,
    streams: deps.streams,
    settings: {
      batchMessages: config.INGEST_BATCH_MESSAGES,
      maxInFlight: config.INGEST_MAX_IN_FLIGHT,
      ackWaitMs: config.INGEST_ACK_WAIT_MS,
      fetchExpiresMs: config.INGEST_FETCH_EXPIRES_MS,
    },
    maxDeliver: config.INGEST_MAX_DELIVER,
    registry: deps.registry,
    log: deps.log,
    audit: config.AUDIT_LOGS_ENABLED,
  });
}
