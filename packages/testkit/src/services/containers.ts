// The testcontainers path: used only when neither an env URL nor a local binary is available.
// testcontainers is imported lazily: it is heavy, and most runs never get here.
import type { ServiceHandle, ServiceName } from './types.js';

export type RuntimeCheck =
  | { readonly ok: true; readonly runtime: string }
  | { readonly ok: false; readonly reason: string };

/** Asks testcontainers whether a container runtime (Docker, Podman, ...) answers; never throws. */
export async function checkContainerRuntime(timeoutMs = 10_000): Promise<RuntimeCheck> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    const client = await Promise.race([getContainerRuntimeClient(), timeout]);
    return {
      ok: true,
      runtime: `${client.info.containerRuntime.host} (${client.info.containerRuntime.serverVersion})`,
    };
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
  }
}

interface ContainerSpec {
  readonly image: string;
  readonly port: number;
  readonly command?: string[];
  readonly env?: Record<string, string>;
  readonly tmpfs?: Record<string, string>;
  /** Log line that marks readiness, and how many times it must appear. */
  readonly ready: readonly [RegExp, number];
  readonly url: (host: string, port: number) => string;
}

const SPECS: Record<ServiceName, ContainerSpec> = {
  postgres: {
    image: 'postgres:16-alpine',
    port: 5432,
    env: { POSTGRES_HOST_AUTH_METHOD: 'trust' },
    command: [
      'postgres',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=200',
    ],
    tmpfs: { '/var/lib/postgresql/data': 'rw' },
    // The image's entrypoint starts the server once to initialise, then for real.
    ready: [/database system is ready to accept connections/, 2],
    url: (host, port) => `postgres://postgres@${host}:${port}/postgres`,
  },
  redis: {
    image: 'redis:7-alpine',
    port: 6379,
    command: ['redis-server', '--save', '', '--appendonly', 'no'],
    ready: [/Ready to accept connections/, 1],
    url: (host, port) => `redis://${host}:${port}`,
  },
  nats: {
    image: 'nats:2.10-alpine',
    port: 4222,
    command: ['-js'],
    ready: [/Server is ready/, 1],
    url: (host, port) => `nats://${host}:${port}`,
  },
};

/** Starts the service in a container; testcontainers' Ryuk sidecar removes it if we die. */
export async function startContainer(name: ServiceName): Promise<ServiceHandle> {
  const started = Date.now();
  const spec = SPECS[name];
  const { GenericContainer, Wait } = await import('testcontainers');
  let container = new GenericContainer(spec.image)
    .withExposedPorts(spec.port)
    .withWaitStrategy(
      Wait.forAll([Wait.forListeningPorts(), Wait.forLogMessage(spec.ready[0], spec.ready[1])]),
    )
    .withStartupTimeout(120_000);
  if (spec.command) container = container.withCommand(spec.command);
  if (spec.env) container = container.withEnvironment(spec.env);
  if (spec.tmpfs) container = container.withTmpFs(spec.tmpfs);
  const running = await container.start();
  let stopped: Promise<void> | undefined;
  return {
    name,
    kind: 'container',
    url: spec.url(running.getHost(), running.getMappedPort(spec.port)),
    startMs: Date.now() - started,
    stop: () => {
      stopped ??= running.stop().then(() => undefined);
      return stopped;
    },
  };
}
