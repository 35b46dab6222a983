// Control-plane settings: the only place that reads process.env. Parsed once, frozen, passed in.
import { checkJwtSettings, jwtSettingsShape } from '@aigw/jwt-auth';
import {
  baseSettings,
  featureFlag,
  grpcHost,
  loadConfig,
  port,
  requireServiceToken,
  serviceAuth,
  serviceToken,
  serviceUrl,
} from '@aigw/runtime';
import { z } from 'zod';

const settingsObject = z.object({
  ...baseSettings,
  PORT: port(8788),
  /** SnapshotService for gateways. */
  GRPC_PORT: port(50051),
  /** Bind address of the SnapshotService: loopback unless set (gateways on other hosts need `0.0.0.0`). */
  GRPC_HOST: grpcHost,
  DATABASE_URL: serviceUrl(['postgres:', 'postgresql:']),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  NATS_URL: serviceUrl(['nats:', 'tls:']),
  NATS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /**
   * Prefix of stream names and subjects (`<ns>_AIGW_CHANGES`, `<ns>.aigw.changes.v1.*`) so several
   * installations (or test runs) can share one NATS. Empty in production.
   */
  NATS_NAMESPACE: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,32}$/, 'letters, digits, _ and - (max 32)')
    .optional(),
  /** 32 bytes, base64: encrypts provider credentials at rest. */
  MASTER_KEY: z
    .string()
    .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes encoded as base64')
    .optional(),
  /** On an empty database: the first admin API key (generated and printed once when unset). */
  BOOTSTRAP_ADMIN_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  BOOTSTRAP_ORGANISATION_NAME: z.string().trim().min(1).max(255).default('Default organisation'),
  BOOTSTRAP_OWNER_EMAIL: z.email().default('owner@example.com'),
  /** Apply pending migrations at start (off when a `migrate` job runs them before rollout). */
  MIGRATE_ON_START: featureFlag,
  API_ACCESS_ENABLED: featureFlag,
  AUDIT_LOGS_ENABLED: featureFlag,
  SCIM_ENABLED: featureFlag,

  /** Token authentication (spec 5.4): JWTs are accepted only when a JWKS URL is set. */
  ...jwtSettingsShape,

  /** Shared token gateways present on SnapshotService calls (`authorization: Bearer <token>`): required. */
  SNAPSHOT_SERVICE_TOKEN: serviceToken,
  /** `disabled-i-understand-the-risk`: the SnapshotService answers anyone who reaches it (no token). */
  SNAPSHOT_SERVICE_AUTH: serviceAuth,
  /** How often the background worker marks keys past `expires_at` as expired. */
  API_KEY_EXPIRY_SWEEP_MS: z.coerce.number().int().min(1000).max(60_000).default(15_000),
  /** How often the background refresher looks for integrations whose secret references are due. */
  SECRET_REFRESH_SWEEP_MS: z.coerce.number().int().min(1000).max(3_600_000).default(15_000),
  /** Deadline of one request to a secret manager (Vault, AWS Secrets Manager). */
  SECRET_MANAGER_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
  /** How often MCP integrations' servers are synced (metadata, tools); also synced on every change. */
  MCP_SYNC_INTERVAL_MS: z.coerce.number().int().min(1000).max(86_400_000).default(600_000),
  /** How often the outbox relay polls when no NOTIFY woke it. */
  OUTBOX_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(500),

  /** host:port of the logger's LogsService (/logs, /analytics, /audit-logs, /feedback). Unset: those routes answer 503. */
  LOGGER_GRPC_URL: z
    .string()
    .regex(/^[\w.-]+:\d{1,5}$/, 'must be host:port')
    .optional(),
  /** Sent as `authorization: Bearer <token>` to LogsService (the logger's LOGS_SERVICE_TOKEN): required with LOGGER_GRPC_URL. */
  LOGGER_SERVICE_TOKEN: serviceToken,
  /** Deadline of one LogsService call. */
  LOGGER_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(30_000),
  /** Deadline of the usage read that fills `current_usage` in admin reads (which never fail on it). */
  LOGGER_USAGE_TIMEOUT_MS: z.coerce.number().int().min(50).max(30_000).default(1000),

  /**
   * Alert e-mail (spec part 6): `smtp://user:pass@host:587` (STARTTLS when offered) or
   * `smtps://host:465`. Unset: alerts are stored and listed, and no e-mail is sent (said at startup).
   */
  SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).optional(),
  /** From address of alert e-mails (`Name <address>` or an address). */
  SMTP_FROM: z.string().trim().min(3).max(320).default('AI gateway alerts <alerts@localhost>'),
  /** Connection, greeting and socket timeout of one SMTP conversation. */
  SMTP_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(30_000),
  /** First retry of a failed alert e-mail after this long, doubling each time up to SMTP_RETRY_MAX_MS. */
  SMTP_RETRY_BASE_MS: z.coerce.number().int().min(10).max(3_600_000).default(5_000),
  SMTP_RETRY_MAX_MS: z.coerce.number().int().min(10).max(86_400_000).default(900_000),
  /** Attempts per alert e-mail before it is marked `failed` (the alert stays listed). */
  SMTP_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(1000).default(100),
  /** How often due alert e-mails (retries) are looked for; a new alert is sent at once. */
  SMTP_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1_000),
});

export const settingsSchema = settingsObject.superRefine(checkJwtSettings).check(
  // The snapshot holds every key hash and every sealed credential of every organisation.
  requireServiceToken({
    token: 'SNAPSHOT_SERVICE_TOKEN',
    off: 'SNAPSHOT_SERVICE_AUTH',
    why: 'gateways present it to read the snapshot (every key hash and sealed credential); give them the same value',
  }),
  // The logger always checks its token (LogsService trusts the caller identity the control plane sends).
  requireServiceToken({
    token: 'LOGGER_SERVICE_TOKEN',
    neededWith: 'LOGGER_GRPC_URL',
    why: "the logger's LOGS_SERVICE_TOKEN, which its LogsService always requires",
  }),
);

export type ControlPlaneConfig = z.output<typeof settingsSchema>;

export function loadControlPlaneConfig(env: NodeJS.ProcessEnv = process.env): ControlPlaneConfig {
  return loadConfig(settingsSchema, env);
}

/** Variables `env` secret references may read: only `AIGW_SECRET_*`, never the rest of the environment. */
export const SECRET_ENV_PREFIX = 'AIGW_SECRET_';

export function secretEnvironment(env: NodeJS.ProcessEnv = process.env): ReadonlyMap<string, string> {
  return new Map(
    Object.entries(env).filter(
      (entry): entry is [string, string] => entry[0].startsWith(SECRET_ENV_PREFIX) && entry[1] !== undefined,
    ),
  );
}
