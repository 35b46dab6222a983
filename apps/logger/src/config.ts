// Logger settings: the only place that reads process.env. Parsed once, frozen, passed in.
import { baseSettings, featureFlag, loadConfig, port, serviceUrl } from '@aigw/runtime';
import { z } from 'zod';

export const settingsSchema = z.object({
  ...baseSettings,
  /** Health and metrics only: the logger's API is gRPC. */
  PORT: port(8789),
  /** LogsService for the control plane. */
  GRPC_PORT: port(50052),
  DATABASE_URL: serviceUrl(['postgres:', 'postgresql:']),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  NATS_URL: serviceUrl(['nats:', 'tls:']),
  /** JetStream replicas for the streams the logger creates (3 on a NATS cluster). */
  NATS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /** Spec part 8: logs are kept 90 days and metrics 365 days unless configured. */
  LOG_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
  METRICS_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(365),
  MIGRATE_ON_START: featureFlag,
  DATA_EXPORTS_ENABLED: featureFlag,
  AUDIT_LOGS_ENABLED: featureFlag,
});

export type LoggerConfig = z.output<typeof settingsSchema>;

export function loadLoggerConfig(env: NodeJS.ProcessEnv = process.env): LoggerConfig {
  return loadConfig(settingsSchema, env);
}
