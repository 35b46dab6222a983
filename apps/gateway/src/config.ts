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
import { z } from 'zod';
import { normaliseAllowlist } from './ssrf/index.js';

const bytes = (fallback: number, max: number) => z.coerce.number().int().min(0).max(max).default(fallback);
const MiB = 1024 * 1024;

const settingsObject = z.object({
  ...baseSettings,
  PORT: port(8787),
  /** Counters (rate limits, budgets) and cache. Unset: in-process substitutes, one replica only. */
  REDIS_URL: serviceUrl(['redis:', 'rediss:']).optional(),
  /** Request events to the logger and change events from the control plane. */
  NATS_URL: serviceUrl(['nats:', 'tls:']).optional(),
  /** host:port of the control plane's SnapshotService. Unset: standalone, API keys are not checked. */
  CONTROL_PLANE_GRPC_URL: z
    .string()
    .regex(/^[\w.-]+:\d{1,5}$/, 'must be host:port')
    .optional(),
  /** `authorization: Bearer <token>` sent to the SnapshotService (the control plane's SNAPSHOT_SERVICE_TOKEN). */
  SNAPSHOT_SERVICE_TOKEN: serviceToken,
  /** `disabled-i-understand-the-risk`: no token, for a control plane whose SnapshotService is open. */
  SNAPSHOT_SERVICE_AUTH: serviceAuth,
  /** Deadline of one SnapshotService call (a whole snapshot stream, or a revision probe). */
  SNAPSHOT_GRPC_DEADLINE_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  /** How often the held snapshot is compared with the control plane's revision and checksum (0: never). */
  SNAPSHOT_ANTI_ENTROPY_INTERVAL_MS: durationMs(60_000),
  /**
   * Last-known-good snapshot file, rewritten after each load, read when the control plane is
   * unreachable at startup. Default: `snapshot-v1.lkg` in the event spool directory.
   */
  SNAPSHOT_LKG_PATH: z.string().min(1).optional(),
  /** Prefix of the change-event subjects (`<ns>.aigw.changes.v1.*`): the control plane's NATS_NAMESPACE. */
  NATS_NAMESPACE: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,32}$/, 'letters, digits, _ and - (max 32)')
    .optional(),
  /** 32 bytes, base64: decrypts provider credentials from the snapshot. */
  MASTER_KEY: z
    .string()
    .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes encoded as base64')
    .optional(),
  /** Hosts exempt from the private-range check of custom hosts (comma-separated). */
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
    }),
  /** Idle limit on an upstream socket (no byte either way for this long ends the request: 504). */
  UPSTREAM_TIMEOUT_MS: durationMs(600_000),
  /** Largest request body accepted (413 beyond). File uploads need it large. */
  MAX_BODY_BYTES: bytes(100 * MiB, 4096 * MiB),
  /** Largest request head accepted (Node answers 431 beyond). */
  MAX_HEADER_BYTES: bytes(32 * 1024, 1 * MiB),
  /** A client must send its headers within this time (slow-loris defence). */
  HEADERS_TIMEOUT_MS: durationMs(30_000),
  /** A client must send its whole request (headers and body) within this time. */
  REQUEST_BODY_TIMEOUT_MS: durationMs(300_000),
  /** Request and response bodies are kept in request events up to this size (0: never). */
  CAPTURE_BODY_MAX_BYTES: bytes(64 * 1024, 16 * MiB),
  /** JetStream subject of request events. */
  REQUEST_EVENTS_SUBJECT: z
    .string()
    .regex(/^[\w.-]+$/, 'must be a NATS subject without wildcards')
    .default(REQUESTS_SUBJECT),
  /**
   * Where events wait while NATS is unreachable (an emptyDir volume in Kubernetes). One gateway
   * process per directory. Default: `<tmp>/aigw-gateway-events-<PORT>`.
   */
  EVENT_SPOOL_DIR: z.string().min(1).optional(),
  EVENT_SPOOL_MAX_BYTES: bytes(256 * MiB, 64 * 1024 * MiB),
  GUARDRAILS_ENABLED: featureFlag,
  /**
   * Time all regex searches of one guardrail run may take (guardrails/regex-budget.ts): allowed
   * patterns can still cost quadratic time on long text; past it the remaining regex checks fail.
   */
  GUARDRAILS_REGEX_BUDGET_MS: z.coerce.number().int().min(1).max(10_000).default(100),
  USAGE_LIMITS_ENABLED: featureFlag,
  POLICY_ENABLED: featureFlag,
  /** Longest wait for Redis in one limits decision; past it the decision is local (docs/limits.md). */
  LIMITS_REDIS_TIMEOUT_MS: z.coerce.number().int().min(1).max(60_000).default(100),
  /** After a Redis failure, limits decide locally for this long before trying Redis again. */
  LIMITS_REDIS_RETRY_MS: durationMs(1_000),
  /** Output tokens a budget reservation assumes when the request sets no max_tokens. */
  LIMITS_DEFAULT_MAX_TOKENS: z.coerce.number().int().min(0).max(10_000_000).default(1024),
  /** A budget reservation not settled within this time is released (a crashed gateway's calls). */
  LIMITS_RESERVATION_TTL_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(900_000),
  /**
   * While Redis is down (ARCHITECTURE part 4): rate limits `local` (an in-process limiter), `open`
   * (not enforced) or `closed` (503); budgets `last_known` (the last usage Redis reported), `open` or
   * `closed`.
   */
  LIMITS_REDIS_DOWN_RATE_LIMITS: z.enum(['local', 'open', 'closed']).default('local'),
  LIMITS_REDIS_DOWN_BUDGETS: z.enum(['last_known', 'open', 'closed']).default('last_known'),
  /** Response cache without REDIS_URL (docs/cache.md): entries kept in this process. */
  CACHE_MEMORY_MAX_ENTRIES: z.coerce.number().int().min(0).max(10_000_000).default(10_000),
  CACHE_MEMORY_MAX_BYTES: bytes(256 * MiB, 64 * 1024 * MiB),
  /** Answers larger than this (body and headers) are served but not cached. */
  CACHE_MAX_ENTRY_BYTES: bytes(4 * MiB, 512 * MiB),
  /** Base URL of an OpenAI-compatible embeddings API. Unset: `semantic` mode works as `simple`. */
  SEMANTIC_CACHE_EMBEDDINGS_URL: serviceUrl(['http:', 'https:']).optional(),
  SEMANTIC_CACHE_EMBEDDINGS_API_KEY: z.string().min(1).optional(),
  SEMANTIC_CACHE_EMBEDDINGS_MODEL: z.string().min(1).default('text-embedding-3-small'),
  /** An embedding slower than this is skipped (the request goes on as a simple-cache lookup). */
  SEMANTIC_CACHE_EMBEDDINGS_TIMEOUT_MS: durationMs(2_000),
  /** Earlier questions compared per semantic lookup (the most recent of the bucket). */
  SEMANTIC_CACHE_SCAN_LIMIT: z.coerce.number().int().min(1).max(100_000).default(1000),
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
