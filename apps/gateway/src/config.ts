// Gateway settings: the only place that reads process.env. Parsed once, frozen, passed in.
import { baseSettings, durationMs, featureFlag, loadConfig, port, serviceUrl } from '@aigw/runtime';
import { z } from 'zod';

export const settingsSchema = z.object({
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
  /** 32 bytes, base64: decrypts provider credentials from the snapshot. */
  MASTER_KEY: z
    .string()
    .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes encoded as base64')
    .optional(),
  /** Hosts exempt from the private-range check of custom hosts (comma-separated). */
  CUSTOM_HOST_ALLOWLIST: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean),
    ),
  UPSTREAM_TIMEOUT_MS: durationMs(600_000),
  GUARDRAILS_ENABLED: featureFlag,
  USAGE_LIMITS_ENABLED: featureFlag,
  POLICY_ENABLED: featureFlag,
});

export type GatewayConfig = z.output<typeof settingsSchema>;

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  return loadConfig(settingsSchema, env);
}
