// Control-plane settings: the only place that reads process.env. Parsed once, frozen, passed in.
import { baseSettings, featureFlag, loadConfig, port, serviceUrl } from '@aigw/runtime';
import { z } from 'zod';

export const settingsSchema = z.object({
  ...baseSettings,
  PORT: port(8788),
  /** SnapshotService for gateways. */
  GRPC_PORT: port(50051),
  DATABASE_URL: serviceUrl(['postgres:', 'postgresql:']),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  NATS_URL: serviceUrl(['nats:', 'tls:']),
  /** 32 bytes, base64: encrypts provider credentials at rest. */
  MASTER_KEY: z
    .string()
    .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes encoded as base64')
    .optional(),
  /** On an empty database: the first admin API key (generated and printed once when unset). */
  BOOTSTRAP_ADMIN_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  /** Apply pending migrations at start (off when a `migrate` job runs them before rollout). */
  MIGRATE_ON_START: featureFlag,
  API_ACCESS_ENABLED: featureFlag,
  AUDIT_LOGS_ENABLED: featureFlag,
  SCIM_ENABLED: featureFlag,
});

export type ControlPlaneConfig = z.output<typeof settingsSchema>;

export function loadControlPlaneConfig(env: NodeJS.ProcessEnv = process.env): ControlPlaneConfig {
  return loadConfig(settingsSchema, env);
}
