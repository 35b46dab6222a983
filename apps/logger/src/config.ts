// Logger settings: the only place that reads process.env. Parsed once, frozen, passed in.
import {
  baseSettings,
  durationMs,
  featureFlag,
  grpcHost,
  loadConfig,
  port,
  requireServiceToken,
  serviceToken,
  serviceUrl,
} from '@aigw/runtime';
import { z } from 'zod';

const settingsObject = z.object({
  ...baseSettings,
  /** Health and metrics only: the logger's API is gRPC. */
  PORT: port(8789),
  /** LogsService for the control plane. */
  GRPC_PORT: port(50052),
  /** Bind address of the LogsService: loopback unless set (a control plane on another host needs `0.0.0.0`). */
  GRPC_HOST: grpcHost,
  DATABASE_URL: serviceUrl(['postgres:', 'postgresql:']),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  NATS_URL: serviceUrl(['nats:', 'tls:']),
  /** JetStream replicas for the streams the logger creates (3 on a NATS cluster). */
  NATS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /**
   * Prefix of stream names and subjects (`<ns>_AIGW_REQUESTS`, `<ns>.aigw.requests.v1`), the same
   * setting as the control plane's, so several installations (or test runs) can share one NATS.
   */
  NATS_NAMESPACE: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,32}$/, 'letters, digits, _ and - (max 32)')
    .optional(),
  /** Messages per JetStream fetch (a request message holds up to 500 events). */
  INGEST_BATCH_MESSAGES: z.coerce.number().int().min(1).max(1000).default(32),
  /** Batches of one stream being stored at once; nothing more is fetched while they are. */
  INGEST_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(16).default(2),
  /** The delivery at which a message still not stored is kept in dead_letters instead. */
  INGEST_MAX_DELIVER: z.coerce.number().int().min(2).max(100).default(10),
  /** A delivered message not acknowledged within this time is redelivered. */
  INGEST_ACK_WAIT_MS: z.coerce.number().int().min(1_000).max(600_000).default(60_000),
  /**
   * How long one fetch waits for a batch to fill. A batch is stored when it is full or when this
   * expires, so at low traffic it is how late a request shows up in /logs: keep it short.
   */
  INGEST_FETCH_EXPIRES_MS: z.coerce.number().int().min(1_000).max(60_000).default(1_000),
  /** Request-log partitions are created this many days ahead. */
  PARTITIONS_AHEAD_DAYS: z.coerce.number().int().min(1).max(60).default(3),
  /** How often one replica runs partition maintenance and retention (0: only at start). */
  MAINTENANCE_INTERVAL_MS: durationMs(3_600_000),
  /** The gateway's Redis: when set, usage counters are reconciled upward from the ledger. */
  REDIS_URL: serviceUrl(['redis:', 'rediss:']).optional(),
  /** How often one replica writes ledger totals into Redis (0: only at start). */
  USAGE_RECONCILE_INTERVAL_MS: durationMs(60_000),
  /** Spec part 8: logs are kept 90 days and metrics 365 days unless configured. */
  LOG_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
  METRICS_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(365),
  MIGRATE_ON_START: featureFlag,
  DATA_EXPORTS_ENABLED: featureFlag,
  AUDIT_LOGS_ENABLED: featureFlag,
  /** Callers of LogsService must present this token (the control plane's LOGGER_SERVICE_TOKEN): required. */
  LOGS_SERVICE_TOKEN: serviceToken,
  /** A log export matching more rows fails with a message to narrow its filter. */
  EXPORT_MAX_ROWS: z.coerce.number().int().min(1).max(50_000_000).default(1_000_000),
  /** How often the export runner looks for queued exports (creating one wakes it at once). */
  EXPORT_POLL_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
  /** Finished exports (their files with them) are deleted this many days after they ended. */
  EXPORT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(7),
});

/**
 * LogsService answers with the data of the organisation the request's CallerContext names, so that
 * identity is believed only from a caller holding the token: there is no setting that turns it off.
 */
export const settingsSchema = settingsObject.check(
  requireServiceToken({
    token: 'LOGS_SERVICE_TOKEN',
    why: "the control plane presents it (its LOGGER_SERVICE_TOKEN); LogsService believes a request's caller identity only from a holder of this token",
  }),
);

export type LoggerConfig = z.output<typeof settingsSchema>;

export function loadLoggerConfig(env: NodeJS.ProcessEnv = process.env): LoggerConfig {
  return loadConfig(settingsSchema, env);
}
