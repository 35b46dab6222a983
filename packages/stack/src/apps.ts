// Which apps the stack runs, on which ports, with which environment. Everything runs on one machine,
// so the internal ports (both gRPC services, the logger's health and metrics) listen on loopback only,
// and the gRPC services require the run's tokens.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export type AppName = 'control-plane' | 'logger' | 'gateway';

/**
 * The Node flags an app runs with (`aigw.nodeFlags` of its package.json: the one list its image's
 * CMD, its `start` script and the stack all use; docs/performance.md, "Runtime flags").
 */
export function appNodeFlags(rootDir: string, name: AppName): string[] {
  const manifest = JSON.parse(readFileSync(join(rootDir, 'apps', name, 'package.json'), 'utf8')) as {
    aigw?: { nodeFlags?: unknown };
  };
  const flags = manifest.aigw?.nodeFlags ?? [];
  if (!Array.isArray(flags) || !flags.every((flag) => typeof flag === 'string' && flag.startsWith('--'))) {
    throw new Error(`apps/${name}/package.json: aigw.nodeFlags must be a list of --flags`);
  }
  return flags;
}

export interface StackPorts {
  readonly gateway: number;
  readonly controlPlane: number;
  readonly controlPlaneGrpc: number;
  readonly logger: number;
  readonly loggerGrpc: number;
}

/** ARCHITECTURE part 6: the documented default ports. */
export const DEFAULT_PORTS: StackPorts = {
  gateway: 8787,
  controlPlane: 8788,
  controlPlaneGrpc: 50051,
  logger: 8789,
  loggerGrpc: 50052,
};

export interface ServiceUrls {
  readonly databaseUrl: string;
  readonly redisUrl: string;
  readonly natsUrl: string;
}

export interface AppSpec {
  readonly name: AppName;
  readonly httpPort: number;
  readonly env: Readonly<Record<string, string>>;
}

export interface StackSecrets {
  readonly masterKey: string;
  readonly adminKey: string;
  /**
   * SnapshotService token (control plane and gateway); null when the environment sets
   * SNAPSHOT_SERVICE_AUTH itself, which the apps then read from there.
   */
  readonly snapshotToken: string | null;
  /** LogsService token (the logger's LOGS_SERVICE_TOKEN, the control plane's LOGGER_SERVICE_TOKEN). */
  readonly logsToken: string;
}

const LOOPBACK = '127.0.0.1';

/**
 * Start order matters: the control plane first (gateways sync from it), the gateway last.
 * `gatewayCustomHosts`: hosts the gateway may reach as custom hosts besides public ones (the demo
 * provider's 127.0.0.1), added to any CUSTOM_HOST_ALLOWLIST of the environment.
 */
export function appSpecs(
  ports: StackPorts,
  urls: ServiceUrls,
  secrets: StackSecrets,
  gatewayCustomHosts: { readonly inherited?: string | undefined; readonly add: readonly string[] } = {
    add: [],
  },
): AppSpec[] {
  const { masterKey, adminKey, snapshotToken, logsToken } = secrets;
  const allowlist = [
    ...new Set(
      [...(gatewayCustomHosts.inherited ?? '').split(','), ...gatewayCustomHosts.add]
        .map((host) => host.trim())
        .filter((host) => host !== ''),
    ),
  ].join(',');
  const snapshotAuth: Record<string, string> =
    snapshotToken === null ? {} : { SNAPSHOT_SERVICE_TOKEN: snapshotToken };
  return [
    {
      name: 'control-plane',
      httpPort: ports.controlPlane,
      env: {
        PORT: String(ports.controlPlane),
        GRPC_PORT: String(ports.controlPlaneGrpc),
        GRPC_HOST: LOOPBACK,
        ...snapshotAuth,
        DATABASE_URL: urls.databaseUrl,
        NATS_URL: urls.natsUrl,
        MASTER_KEY: masterKey,
        BOOTSTRAP_ADMIN_KEY: adminKey,
        LOGGER_GRPC_URL: `${LOOPBACK}:${ports.loggerGrpc}`,
        LOGGER_SERVICE_TOKEN: logsToken,
      },
    },
    {
      name: 'logger',
      httpPort: ports.logger,
      env: {
        // Health and metrics only: nothing off this machine needs them.
        HOST: LOOPBACK,
        PORT: String(ports.logger),
        GRPC_PORT: String(ports.loggerGrpc),
        GRPC_HOST: LOOPBACK,
        LOGS_SERVICE_TOKEN: logsToken,
        DATABASE_URL: urls.databaseUrl,
        NATS_URL: urls.natsUrl,
        // The usage reconciliation writes the ledger's totals to the gateways' budget counters
        // (corrects what a Redis outage let through): it needs the gateways' Redis.
        REDIS_URL: urls.redisUrl,
      },
    },
    {
      name: 'gateway',
      httpPort: ports.gateway,
      env: {
        PORT: String(ports.gateway),
        REDIS_URL: urls.redisUrl,
        NATS_URL: urls.natsUrl,
        CONTROL_PLANE_GRPC_URL: `${LOOPBACK}:${ports.controlPlaneGrpc}`,
        ...snapshotAuth,
        MASTER_KEY: masterKey,
        ...(gatewayCustomHosts.add.length > 0 ? { CUSTOM_HOST_ALLOWLIST: allowlist } : {}),
      },
    },
  ];
}
