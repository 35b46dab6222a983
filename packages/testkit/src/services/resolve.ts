// Getting Postgres, Redis and NATS by the cheapest available route: env URL, local binary, container.
import { join } from 'node:path';
import { type BinaryLocator, createLocator, locatePostgres } from './binaries.js';
import { checkContainerRuntime, type RuntimeCheck, startContainer } from './containers.js';
import { startLocalNats } from './nats.js';
import { startLocalPostgres } from './postgres.js';
import { startLocalRedis } from './redis.js';
import type { ServiceHandle, ServiceName } from './types.js';

export interface ResolveOptions {
  /** Keep local data in `<dir>/postgres`, `<dir>/redis`, `<dir>/nats` across restarts (quick start). */
  readonly persistentDir?: string;
  readonly log?: (line: string) => void;
  /** Where `*_URL` variables are read (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** How executables are found (default: PATH, then versioned Postgres directories). */
  readonly locate?: BinaryLocator;
  /** Set false to never try testcontainers. */
  readonly containers?: boolean;
}

export type ResolvedServices = { [K in ServiceName]?: ServiceHandle } & {
  /** Stops everything this call started (env services are left alone). */
  stopAll(): Promise<void>;
};

interface ServiceInfo {
  readonly label: string;
  readonly envVar: string;
  readonly binary: string;
  readonly apt: string;
  readonly brew: string;
  readonly example: string;
}

export const SERVICE_INFO: Record<ServiceName, ServiceInfo> = {
  postgres: {
    label: 'Postgres',
    envVar: 'DATABASE_URL',
    binary: 'postgres/initdb',
    apt: 'postgresql',
    brew: 'postgresql@16',
    example: 'postgres://user:pass@host:5432/postgres',
  },
  redis: {
    label: 'Redis',
    envVar: 'REDIS_URL',
    binary: 'redis-server',
    apt: 'redis-server',
    brew: 'redis',
    example: 'redis://host:6379',
  },
  nats: {
    label: 'NATS',
    envVar: 'NATS_URL',
    binary: 'nats-server',
    apt: 'nats-server',
    brew: 'nats-server',
    example: 'nats://host:4222',
  },
};

export class ServicesUnavailableError extends Error {
  readonly code = 'TESTKIT_SERVICES_UNAVAILABLE';
  constructor(
    readonly missing: readonly ServiceName[],
    runtime: RuntimeCheck | undefined,
  ) {
    super(unavailableMessage(missing, runtime));
    this.name = 'ServicesUnavailableError';
  }
}

type Route = 'env' | 'local' | 'container';

export async function resolveServices(
  which: readonly ServiceName[],
  options: ResolveOptions = {},
): Promise<ResolvedServices> {
  const env = options.env ?? process.env;
  const locate = options.locate ?? createLocator();
  const log = options.log ?? (() => undefined);
  const names = [...new Set(which)];

  const routes = new Map<ServiceName, Route>();
  for (const name of names) {
    if (env[SERVICE_INFO[name].envVar]) routes.set(name, 'env');
    else if (hasLocalBinary(name, locate)) routes.set(name, 'local');
    else routes.set(name, 'container');
  }
  const needContainers = names.filter((name) => routes.get(name) === 'container');
  let runtime: RuntimeCheck | undefined;
  if (needContainers.length > 0) {
    if (options.containers === false) throw new ServicesUnavailableError(needContainers, undefined);
    runtime = await checkContainerRuntime();
    if (!runtime.ok) throw new ServicesUnavailableError(needContainers, runtime);
    log(`container runtime: ${runtime.runtime}`);
    if (options.persistentDir) log('containers keep no data: it is lost when they stop');
  }

  const settled = await Promise.allSettled(
    names.map((name) => start(name, routes.get(name)!, env, locate, options.persistentDir)),
  );
  const handles = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const stopAll = async () => {
    await Promise.allSettled(handles.map((handle) => handle.stop()));
  };
  const failures = settled.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
  if (failures.length > 0) {
    await stopAll();
    const detail = failures.map((err) => (err instanceof Error ? err.message : String(err))).join('\n\n');
    throw new Error(`testkit: could not start every service:\n${detail}`, { cause: failures[0] });
  }

  const resolved: ResolvedServices = { stopAll };
  for (const handle of handles) {
    resolved[handle.name] = handle;
    log(
      `${handle.name}: ${handle.kind}${handle.kind === 'env' ? ` (${SERVICE_INFO[handle.name].envVar})` : ''}, ready in ${handle.startMs} ms`,
    );
  }
  return resolved;
}

function hasLocalBinary(name: ServiceName, locate: BinaryLocator): boolean {
  if (name === 'postgres') return locatePostgres(locate) !== undefined;
  return locate(name === 'redis' ? 'redis-server' : 'nats-server') !== undefined;
}

async function start(
  name: ServiceName,
  route: Route,
  env: Readonly<Record<string, string | undefined>>,
  locate: BinaryLocator,
  persistentDir: string | undefined,
): Promise<ServiceHandle> {
  if (route === 'env') {
    return {
      name,
      kind: 'env',
      url: env[SERVICE_INFO[name].envVar]!,
      startMs: 0,
      stop: async () => undefined,
    };
  }
  if (route === 'container') return startContainer(name);
  const dataDir = persistentDir ? join(persistentDir, name) : undefined;
  if (name === 'postgres') return startLocalPostgres({ dataDir, locate });
  if (name === 'redis') return startLocalRedis({ dataDir, locate });
  return startLocalNats({ dataDir, locate });
}

function unavailableMessage(missing: readonly ServiceName[], runtime: RuntimeCheck | undefined): string {
  const infos = missing.map((name) => SERVICE_INFO[name]);
  const containerNote = runtime
    ? `no container runtime answered (${runtime.ok ? 'ok' : runtime.reason})`
    : 'testcontainers is disabled';
  const lines = [
    `testkit: no way to get ${infos.map((info) => info.label).join(', ')}.`,
    ...infos.map(
      (info) =>
        `  ${info.label}: ${info.envVar} is not set, ${info.binary} is not installed, ${containerNote}.`,
    ),
    'Do one of:',
    `  - install the servers: apt-get install -y ${infos.map((info) => info.apt).join(' ')}` +
      `   (macOS: brew install ${infos.map((info) => info.brew).join(' ')})`,
    `  - point at running servers: ${infos.map((info) => `${info.envVar}=${info.example}`).join(' ')}`,
    '  - start Docker (or Podman) so testcontainers can run them',
  ];
  return lines.join('\n');
}
