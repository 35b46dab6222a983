// Gateway settings: the only place that reads process.env. Parsed once, frozen, passed in.
import { checkJwtSettings, jwtSettingsShape } from '@aigw/jwt-auth';
import { REQUESTS_SUBJECT } from '@aigw/proto';
import {
  baseSettings,
  durationMs,
  featureFlag,
  loadConfig,
  port,
  requireServiceToken,
  serviceAuth,
  serviceToken,
  serviceUrl,
} from '@aigw/runtime';
import { normaliseAllowlist } from '@aigw/ssrf';
import { z } from 'zod';

const bytes = (fallback: number, max: number) => z.coerce.number().int().min(0).max(max).default(fallback);
const MiB = 1024 * 1024;

const settingsObject = z.object({
  ...baseSettings,
  PORT: port(8787).describe('HTTP port: the data plane under /v1, /healthz, /readyz, /metrics.'),
  REDIS_URL: serviceUrl(['redis:', 'rediss:'])
    .optional()
    .describe(
      'Redis (`redis://` or `rediss://`): rate-limit and budget counters, the response cache. Unset: in-process substitutes, right for one replica only.',
    ),
  NATS_URL: serviceUrl(['nats:', 'tls:'])
    .optional()
    .describe(
      'NATS with JetStream (`nats://` or `tls://`): request events to the logger, change events from the control plane. Unset: request events are dropped (counted as `no_nats`).',
    ),
  CONTROL_PLANE_GRPC_URL: z
    .string()
    .regex(/^[\w.-]+:\d{1,5}$/, 'must be host:port')
    .optional()
    .describe(
      "host:port of the control plane's SnapshotService. Unset: standalone, no API key is checked (said at startup).",
    ),
  SNAPSHOT_SERVICE_TOKEN: serviceToken.describe(
    "Required with CONTROL_PLANE_GRPC_URL unless SNAPSHOT_SERVICE_AUTH says otherwise, at least 32 characters: sent as `authorization: Bearer <token>` to the SnapshotService (the control plane's SNAPSHOT_SERVICE_TOKEN).",
  ),
  SNAPSHOT_SERVICE_AUTH: serviceAuth.describe(
    '`disabled-i-understand-the-risk`: no token, for a control plane whose SnapshotService is open.',
  ),
  SNAPSHOT_GRPC_DEADLINE_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(600_000)
    .default(30_000)
    .describe('Deadline (ms) of one SnapshotService call (a whole snapshot stream, or a revision probe).'),
  SNAPSHOT_ANTI_ENTROPY_INTERVAL_MS: durationMs(60_000).describe(
    "How often (ms) the held snapshot is compared with the control plane's revision and checksum (0: never).",
  ),
  SNAPSHOT_LKG_PATH: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Last-known-good snapshot file, rewritten after each load, read when the control plane is unreachable at startup. Unset: `snapshot-v1.lkg` in the event spool directory.',
    ),
  NATS_NAMESPACE: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,32}$/, 'letters, digits, _ and - (max 32)')
    .optional()
    .describe(
      "Prefix of the change-event subjects (`<ns>.aigw.changes.v1.*`): the control plane's NATS_NAMESPACE. Unset in production.",
    ),
  MASTER_KEY: z
    .string()
    .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes encoded as base64')
    .optional()
    .describe(
      "32 bytes, base64: decrypts provider credentials from the snapshot (the control plane's MASTER_KEY). Unset: managed credentials answer 500 `credentials_unavailable`.",
    ),
  CUSTOM_HOST_ALLOWLIST: z
    .string()
    .default('')
    .transform((v, ctx) => {
      try {
        return normaliseAllowlist(v.split(',').filter((h) => h.trim() !== ''));
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: err instanceof Error ? err.message : String(err) });
        return z.NEVER;
      }
    })
    .describe(
      'Comma-separated host names and IP literals exempt from the private-range check of custom hosts (docs/custom-hosts.md); empty by default, for local development and tests.',
    ),
  UPSTREAM_TIMEOUT_MS: durationMs(600_000).describe(
    'Idle limit (ms) on an upstream socket: no byte either way for this long ends the request (504).',
  ),
  MAX_BODY_BYTES: bytes(100 * MiB, 4096 * MiB).describe(
    'Largest request body accepted (413 beyond). File uploads need it large.',
  ),
  MAX_HEADER_BYTES: bytes(32 * 1024, 1 * MiB).describe(
    'Largest request head accepted (Node answers 431 beyond).',
  ),
  HEADERS_TIMEOUT_MS: durationMs(30_000).describe(
    'A client must send its headers within this time (ms; slow-loris defence).',
  ),
  REQUEST_BODY_TIMEOUT_MS: durationMs(300_000).describe(
    'A client must send its whole request (headers and body) within this time (ms).',
  ),
  CAPTURE_BODY_MAX_BYTES: bytes(64 * 1024, 16 * MiB).describe(
    'Request and response bodies are kept in request events up to this size (0: never).',
  ),
  REQUEST_EVENTS_SUBJECT: z
    .string()
    .regex(/^[\w.-]+$/, 'must be a NATS subject without wildcards')
    .default(REQUESTS_SUBJECT)
    .describe("JetStream subject of request events (the logger's stream listens on it)."),
  EVENT_SPOOL_DIR: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Where request events wait on disk while NATS is unreachable, replayed when it is back (docs/request-events.md); an emptyDir volume in Kubernetes. One gateway process per directory. Unset: `<tmp>/aigw-gateway-events-<PORT>`.',
    ),
  EVENT_SPOOL_MAX_BYTES: bytes(256 * MiB, 64 * 1024 * MiB).describe(
    'Most bytes the event spool may hold on disk; an event that would cross it is dropped (counted as `spool_full` in `gateway_request_events_dropped_total`).',
  ),
  GUARDRAILS_ENABLED: featureFlag.describe('`OFF`: guardrails are not run (spec part 8 flag).'),
  GUARDRAILS_REGEX_BUDGET_MS: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(100)
    .describe(
      'Time (ms) all regex searches of one guardrail run may take: allowed patterns can still cost quadratic time on long text; past it the remaining regex checks fail.',
    ),
  USAGE_LIMITS_ENABLED: featureFlag.describe(
    '`OFF`: every budget is ignored, of policies and of entities (spec part 8 flag).',
  ),
  POLICY_ENABLED: featureFlag.describe(
    '`OFF`: rate-limit and usage-limit policies are ignored; limits set on entities still apply (spec part 8 flag).',
  ),
  LIMITS_REDIS_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1)
    .max(60_000)
    .default(100)
    .describe(
      'Longest wait (ms) for Redis in one limits decision; past it the decision is local (docs/limits.md).',
    ),
  LIMITS_REDIS_RETRY_MS: durationMs(1_000).describe(
    'After a Redis failure, limits decide locally for this long (ms) before trying Redis again.',
  ),
  LIMITS_DEFAULT_MAX_TOKENS: z.coerce
    .number()
    .int()
    .min(0)
    .max(10_000_000)
    .default(1024)
    .describe('Output tokens a budget reservation assumes when the request sets no max_tokens.'),
  LIMITS_RESERVATION_TTL_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(86_400_000)
    .default(900_000)
    .describe(
      "A budget reservation not settled within this time (ms) is released (a crashed gateway's calls).",
    ),
  LIMITS_REDIS_DOWN_RATE_LIMITS: z
    .enum(['local', 'open', 'closed'])
    .default('local')
    .describe(
      'Rate limits while Redis is down (ARCHITECTURE part 4): `local` (an in-process limiter), `open` (not enforced) or `closed` (503).',
    ),
  LIMITS_REDIS_DOWN_BUDGETS: z
    .enum(['last_known', 'open', 'closed'])
    .default('last_known')
    .describe(
      'Budgets while Redis is down: `last_known` (the last usage Redis reported), `open` (not enforced) or `closed` (503).',
    ),
  CACHE_MEMORY_MAX_ENTRIES: z.coerce
    .number()
    .int()
    .min(0)
    .max(10_000_000)
    .default(10_000)
    .describe('Response cache without REDIS_URL (docs/cache.md): entries kept in this process at most.'),
  CACHE_MEMORY_MAX_BYTES: bytes(256 * MiB, 64 * 1024 * MiB).describe(
    'Response cache without REDIS_URL: bytes kept in this process at most.',
  ),
  CACHE_MAX_ENTRY_BYTES: bytes(4 * MiB, 512 * MiB).describe(
    'Answers larger than this (body and headers) are served but not cached.',
  ),
  SEMANTIC_CACHE_EMBEDDINGS_URL: serviceUrl(['http:', 'https:'])
    .optional()
    .describe(
      'Base URL of an OpenAI-compatible embeddings API for cache mode `semantic`. Unset: `semantic` works as `simple`.',
    ),
  SEMANTIC_CACHE_EMBEDDINGS_API_KEY: z
    .string()
    .min(1)
    .optional()
    .describe('Bearer key of that embeddings API.'),
  SEMANTIC_CACHE_EMBEDDINGS_MODEL: z
    .string()
    .min(1)
    .default('text-embedding-3-small')
    .describe('Embedding model asked of that API.'),
  SEMANTIC_CACHE_EMBEDDINGS_TIMEOUT_MS: durationMs(2_000).describe(
    'An embedding slower than this (ms) is skipped (the request goes on as a simple-cache lookup).',
  ),
  SEMANTIC_CACHE_SCAN_LIMIT: z.coerce
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(1000)
    .describe('Earlier questions compared per semantic lookup (the most recent of the bucket).'),
  /** Token authentication (spec 5.4): with a control plane, JWTs are accepted in x-service-api-key. */
  ...jwtSettingsShape,
});

export const settingsSchema = settingsObject.superRefine(checkJwtSettings).check(
  requireServiceToken({
    token: 'SNAPSHOT_SERVICE_TOKEN',
    off: 'SNAPSHOT_SERVICE_AUTH',
    neededWith: 'CONTROL_PLANE_GRPC_URL',
    why: "the control plane's SNAPSHOT_SERVICE_TOKEN, which its SnapshotService requires",
  }),
);

export type GatewayConfig = z.output<typeof settingsSchema>;

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  return loadConfig(settingsSchema, env);
}
