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
  PORT: port(8789).describe("HTTP port of /healthz, /readyz and /metrics (the logger's API is gRPC)."),
  GRPC_PORT: port(50052).describe('Port of the LogsService, which the control plane calls.'),
  GRPC_HOST: grpcHost.describe(
    'Bind address of the LogsService: loopback unless set; `0.0.0.0` when the control plane runs on another host (with the token).',
  ),
  DATABASE_URL: serviceUrl(['postgres:', 'postgresql:']).meta({
    description:
      'Postgres (`postgres://` or `postgresql://` URL): request logs, analytics, the usage ledger and audit records, schema `logs`.',
    examples: ['postgres://postgres@127.0.0.1:5432/aigw'],
  }),
  DATABASE_POOL_MAX: z.coerce
    .number()
    .int()
    .min(1)
    .max(200)
    .default(10)
    .describe('Postgres connections kept open at most.'),
  NATS_URL: serviceUrl(['nats:', 'tls:']).meta({
    description:
      'NATS with JetStream (`nats://` or `tls://`): request events from gateways, audit records from the control plane.',
    examples: ['nats://127.0.0.1:4222'],
  }),
  NATS_STREAM_REPLICAS: z.coerce
    .number()
    .int()
    .min(1)
    .max(5)
    .default(1)
    .describe('JetStream replicas of the streams the logger creates (3 on a NATS cluster).'),
  NATS_NAMESPACE: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,32}$/, 'letters, digits, _ and - (max 32)')
    .optional()
    .describe(
      "Prefix of stream names and subjects (`<ns>_AIGW_REQUESTS`, `<ns>.aigw.requests.v1`), the same as the control plane's and the gateways', so several installations (or test runs) can share one NATS. Unset in production.",
    ),
  INGEST_BATCH_MESSAGES: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(32)
    .describe('Messages per JetStream fetch (a request message holds up to 500 events).'),
  INGEST_MAX_IN_FLIGHT: z.coerce
    .number()
    .int()
    .min(1)
    .max(16)
    .default(2)
    .describe('Batches of one stream being stored at once; nothing more is fetched while they are.'),
  INGEST_MAX_DELIVER: z.coerce
    .number()
    .int()
    .min(2)
    .max(100)
    .default(10)
    .describe('The delivery at which a message still not stored is kept in `dead_letters` instead.'),
  INGEST_ACK_WAIT_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(600_000)
    .default(60_000)
    .describe('A delivered message not acknowledged within this time (ms) is redelivered.'),
  INGEST_FETCH_EXPIRES_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(60_000)
    .default(1_000)
    .describe(
      'How long (ms) one fetch waits for a batch to fill. A batch is stored when it is full or when this expires, so at low traffic it is how late a request shows up in /logs: keep it short.',
    ),
  PARTITIONS_AHEAD_DAYS: z.coerce
    .number()
    .int()
    .min(1)
    .max(60)
    .default(3)
    .describe('Request-log partitions are created this many days ahead.'),
  MAINTENANCE_INTERVAL_MS: durationMs(3_600_000).describe(
    'How often (ms) one replica runs partition maintenance and retention (0: only at start).',
  ),
  REDIS_URL: serviceUrl(['redis:', 'rediss:'])
    .optional()
    .describe(
      "The gateways' Redis (`redis://` or `rediss://`): when set, their usage counters are reconciled upward from the ledger (corrects what a Redis outage let through). Unset: no reconciliation.",
    ),
  USAGE_RECONCILE_INTERVAL_MS: durationMs(60_000).describe(
    "How often (ms) one replica writes the ledger's totals into Redis (0: only at start).",
  ),
  LOG_RETENTION_DAYS: z.coerce
    .number()
    .int()
    .min(1)
    .max(3650)
    .default(90)
    .describe('Days request logs are kept (spec part 8: 90 unless configured).'),
  METRICS_RETENTION_DAYS: z.coerce
    .number()
    .int()
    .min(1)
    .max(3650)
    .default(365)
    .describe('Days analytics (metrics) are kept (spec part 8: 365 unless configured).'),
  MIGRATE_ON_START: featureFlag.describe(
    'Apply pending migrations at start (`OFF` when a migrate job runs them before rollout).',
  ),
  DATA_EXPORTS_ENABLED: featureFlag.describe('`OFF`: log exports are refused (spec part 8 flag).'),
  AUDIT_LOGS_ENABLED: featureFlag.describe('`OFF`: audit records are not stored.'),
  LOGS_SERVICE_TOKEN: serviceToken.describe(
    "Required, at least 32 characters: callers of the LogsService must present it (the control plane's LOGGER_SERVICE_TOKEN). No setting turns the check off.",
  ),
  EXPORT_MAX_ROWS: z.coerce
    .number()
    .int()
    .min(1)
    .max(50_000_000)
    .default(1_000_000)
    .describe('A log export matching more rows fails with a message to narrow its filter.'),
  EXPORT_POLL_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(600_000)
    .default(5_000)
    .describe('How often (ms) the export runner looks for queued exports (creating one wakes it at once).'),
  EXPORT_RETENTION_DAYS: z.coerce
    .number()
    .int()
    .min(1)
    .max(3650)
    .default(7)
    .describe('Finished exports (their files with them) are deleted this many days after they ended.'),
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
