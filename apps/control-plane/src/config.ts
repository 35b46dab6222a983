// Control-plane settings: the only place that reads process.env. Parsed once, frozen, passed in.
import { checkJwtSettings, jwtSettingsShape } from '@aigw/jwt-auth';
import {
  baseSettings,
  durationMs,
  featureFlag,
  grpcHost,
  loadConfig,
  port,
  requireServiceToken,
  serviceAuth,
  serviceToken,
  serviceUrl,
  trustProxy,
} from '@aigw/runtime';
import { z } from 'zod';

const settingsObject = z.object({
  ...baseSettings,
  PORT: port(8788).describe('HTTP port: the admin API under /v1, /healthz, /readyz, /metrics.'),
  // Node's defaults (60 s for the head, 300 s for the whole request) let a few slow clients hold
  // sockets for minutes; admin requests are small (1 MB at most), so both are much shorter here.
  HEADERS_TIMEOUT_MS: durationMs(20_000).describe(
    'A client must send its request head within this time (ms; slow-loris defence: 408 and close). Checked every second.',
  ),
  REQUEST_BODY_TIMEOUT_MS: durationMs(60_000).describe(
    'A client must send its whole request (head and body, at most 1 MB) within this time (ms; 408 and close). At least HEADERS_TIMEOUT_MS.',
  ),
  MAX_HEADER_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024)
    .default(16 * 1024)
    .describe('Largest request head accepted (bytes; Node answers 431 beyond).'),
  TRUST_PROXY: trustProxy.describe(
    "Proxies trusted to name the client (X-Forwarded-For, -Proto, -Host): a hop count (`1`: the ingress in front) or a comma-separated list of addresses, CIDR ranges, `loopback`, `linklocal`, `uniquelocal`. Audit records then hold the client's address, and SCIM locations the scheme and host clients use. Unset: none (the socket's peer is the client); `true` is refused.",
  ),
  GRPC_PORT: port(50051).describe('Port of the SnapshotService, from which gateways stream their snapshot.'),
  GRPC_HOST: grpcHost.describe(
    'Bind address of the SnapshotService: loopback unless set; `0.0.0.0` when gateways run on other hosts (with the token; docs/control-plane.md, "Internal gRPC").',
  ),
  DATABASE_URL: serviceUrl(['postgres:', 'postgresql:']).meta({
    description:
      'Postgres (`postgres://` or `postgresql://` URL): every admin resource, schema `control`, and the outbox.',
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
      'NATS with JetStream (`nats://` or `tls://`): change events and audit records out, usage alerts in.',
    examples: ['nats://127.0.0.1:4222'],
  }),
  NATS_STREAM_REPLICAS: z.coerce
    .number()
    .int()
    .min(1)
    .max(5)
    .default(1)
    .describe('JetStream replicas of the streams the control plane creates (3 on a NATS cluster).'),
  NATS_NAMESPACE: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,32}$/, 'letters, digits, _ and - (max 32)')
    .optional()
    .describe(
      'Prefix of stream names and subjects (`<ns>_AIGW_CHANGES`, `<ns>.aigw.changes.v1.*`) so several installations (or test runs) can share one NATS; gateways and the logger set the same value. Unset in production.',
    ),
  MASTER_KEY: z
    .string()
    .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes encoded as base64')
    .optional()
    .describe(
      '32 bytes, base64 (`openssl rand -base64 32`): encrypts provider credentials at rest; gateways hold the same value. Unset: requests that would store credentials are 500 AB04.',
    ),
  BOOTSTRAP_ADMIN_KEY: z
    .string()
    .min(32, 'must be at least 32 characters')
    .optional()
    .describe(
      'On an empty database: the first admin API key (at least 32 characters). Unset: one is generated and printed once on stdout.',
    ),
  BOOTSTRAP_ORGANISATION_NAME: z
    .string()
    .trim()
    .min(1)
    .max(255)
    .default('Default organisation')
    .describe('On an empty database: the name of the first organisation (slug `default`).'),
  BOOTSTRAP_OWNER_EMAIL: z
    .email()
    .default('owner@example.com')
    .describe("On an empty database: the e-mail of the first organisation's owner."),
  MIGRATE_ON_START: featureFlag.describe(
    'Apply pending migrations at start (`OFF` when a migrate job, `node dist/migrate.js`, runs them before rollout).',
  ),
  API_ACCESS_ENABLED: featureFlag.describe(
    '`OFF`: every /v1 route answers 403 AB03 (health and metrics stay up).',
  ),
  AUDIT_LOGS_ENABLED: featureFlag.describe('`OFF`: no audit records are written.'),
  CONSOLE_ENABLED: featureFlag.describe(
    '`OFF`: the web console is not served at /console (the admin API it calls is unaffected).',
  ),
  CONSOLE_DIR: z
    .string()
    .min(1)
    .optional()
    .describe(
      "The console's built files (default: the dist/ folder of the @aigw/console package, built by `pnpm build`).",
    ),
  SCIM_ENABLED: featureFlag.describe(
    'SCIM 2.0 user provisioning at /scim/v2 (docs/admin-api/scim.md); `OFF`: those routes answer 404 as if absent.',
  ),

  /** Token authentication (spec 5.4): JWTs are accepted only when a JWKS URL is set. */
  ...jwtSettingsShape,

  SNAPSHOT_SERVICE_TOKEN: serviceToken.describe(
    'Required unless SNAPSHOT_SERVICE_AUTH says otherwise, at least 32 characters: gateways present it on SnapshotService calls (`authorization: Bearer <token>`); give them the same value.',
  ),
  SNAPSHOT_SERVICE_AUTH: serviceAuth.describe(
    '`disabled-i-understand-the-risk`: the SnapshotService answers anyone who reaches it, without a token (SNAPSHOT_SERVICE_TOKEN must then be unset; a warning is logged at every start).',
  ),
  API_KEY_EXPIRY_SWEEP_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .max(60_000)
    .default(15_000)
    .describe('How often (ms) the background worker marks keys past `expires_at` as expired.'),
  SECRET_REFRESH_SWEEP_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .max(3_600_000)
    .default(15_000)
    .describe(
      'How often (ms) the background refresher looks for integrations whose secret references are due.',
    ),
  SECRET_MANAGER_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(60_000)
    .default(5_000)
    .describe('Deadline (ms) of one request to a secret manager (Vault, AWS Secrets Manager).'),
  MCP_SYNC_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .max(86_400_000)
    .default(600_000)
    .describe(
      "How often (ms) MCP integrations' servers are synced (metadata, tools); they are also synced on every change.",
    ),
  OUTBOX_POLL_MS: z.coerce
    .number()
    .int()
    .min(10)
    .max(60_000)
    .default(500)
    .describe('How often (ms) the outbox relay polls when no NOTIFY woke it.'),

  LOGGER_GRPC_URL: z
    .string()
    .regex(/^[\w.-]+:\d{1,5}$/, 'must be host:port')
    .optional()
    .describe(
      "host:port of the logger's LogsService (/logs, /analytics, /audit-logs, /feedback, `current_usage`). Unset: those routes answer 503.",
    ),
  LOGGER_SERVICE_TOKEN: serviceToken.describe(
    "Required with LOGGER_GRPC_URL, at least 32 characters: sent as `authorization: Bearer <token>` to the LogsService (the logger's LOGS_SERVICE_TOKEN).",
  ),
  LOGGER_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(300_000)
    .default(30_000)
    .describe('Deadline (ms) of one LogsService call (503 beyond).'),
  LOGGER_USAGE_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(50)
    .max(30_000)
    .default(1000)
    .describe(
      'Deadline (ms) of the usage read that fills `current_usage` in admin reads (which never fail on it: docs/control-plane.md, "Current usage").',
    ),

  SMTP_URL: z
    .url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' })
    .optional()
    .describe(
      'Alert e-mail (spec part 6, docs/admin-api/alerts.md): `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://host:465`. Unset: alerts are stored and listed, no e-mail is sent (said at startup).',
    ),
  SMTP_FROM: z
    .string()
    .trim()
    .min(3)
    .max(320)
    .default('AI gateway alerts <alerts@localhost>')
    .describe('From address of alert e-mails (`Name <address>` or an address).'),
  SMTP_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(300_000)
    .default(30_000)
    .describe('Connection, greeting and socket timeout (ms) of one SMTP conversation.'),
  SMTP_RETRY_BASE_MS: z.coerce
    .number()
    .int()
    .min(10)
    .max(3_600_000)
    .default(5_000)
    .describe('First retry (ms) of a failed alert e-mail, doubling each time up to SMTP_RETRY_MAX_MS.'),
  SMTP_RETRY_MAX_MS: z.coerce
    .number()
    .int()
    .min(10)
    .max(86_400_000)
    .default(900_000)
    .describe('Longest wait (ms) between two attempts of an alert e-mail.'),
  SMTP_MAX_ATTEMPTS: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(100)
    .describe('Attempts per alert e-mail before it is marked `failed` (the alert stays listed).'),
  SMTP_POLL_MS: z.coerce
    .number()
    .int()
    .min(10)
    .max(60_000)
    .default(1_000)
    .describe('How often (ms) due alert e-mail retries are looked for; a new alert is sent at once.'),
});

/** Node refuses to create a server whose head deadline is later than its whole-request deadline. */
function checkHttpTimeouts(settings: z.output<typeof settingsObject>, ctx: z.RefinementCtx): void {
  const { HEADERS_TIMEOUT_MS: head, REQUEST_BODY_TIMEOUT_MS: whole } = settings;
  if (head > 0 && whole > 0 && head > whole)
    ctx.addIssue({
      code: 'custom',
      path: ['HEADERS_TIMEOUT_MS'],
      message: `must not exceed REQUEST_BODY_TIMEOUT_MS (${whole})`,
    });
}

export const settingsSchema = settingsObject
  .superRefine(checkJwtSettings)
  .superRefine(checkHttpTimeouts)
  .check(
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
