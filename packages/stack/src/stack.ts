// The whole platform on one machine: resolve Postgres/Redis/NATS, then start the three apps.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MockProvider } from '@aigw/mock-provider';
import { resolveServices } from '@aigw/testkit/services';
import { AdminClient } from './admin-client.js';
import { type AppName, appNodeFlags, appSpecs, DEFAULT_PORTS, type StackPorts } from './apps.js';
import { type DemoSetup, demoBanner, ensureDemo, startDemoProvider } from './demo.js';
import { type AppProcess, spawnApp, waitReady } from './process.js';

export interface StackOptions {
  /** Repository root: apps are started from `apps/<name>/dist/main.js`. */
  readonly rootDir: string;
  /** Where local services keep their data and the stack keeps its master key. */
  readonly dataDir: string;
  /** Environment passed to the apps; DATABASE_URL/REDIS_URL/NATS_URL here skip local services. */
  readonly env: NodeJS.ProcessEnv;
  readonly ports?: Partial<StackPorts>;
  readonly out: (line: string) => void;
  readonly readyTimeoutMs?: number;
  /**
   * The quick start's demo (`pnpm start` unless AIGW_DEMO=0): the mock provider on 127.0.0.1:`port`
   * as `@demo` of the first workspace, with a workspace key in `<dataDir>/demo.key`. Off when unset.
   */
  readonly demo?: { readonly port: number };
}

export interface Stack {
  readonly ports: StackPorts;
  /**
   * Resolves with the first app that keeps crashing: an app that exits on its own is restarted with
   * backoff (1 s, doubling to 30 s), and given up on after MAX_CRASHES exits within CRASH_WINDOW_MS.
   * Never resolves on stop().
   */
  readonly crashed: Promise<{ app: AppName; code: number | string }>;
  /** Stops the apps (SIGTERM, drain), then the demo provider and the services. Returns each app's exit code. */
  stop(graceMs?: number): Promise<Record<AppName, number | string>>;
}

export async function startStack(options: StackOptions): Promise<Stack> {
  const ports: StackPorts = { ...DEFAULT_PORTS, ...options.ports };
  mkdirSync(options.dataDir, { recursive: true });
  const services = await resolveServices(['postgres', 'redis', 'nats'], {
    persistentDir: options.dataDir,
    env: options.env,
    log: (line) => options.out(`[stack] ${line}`),
  });
  const { postgres, redis, nats } = services;
  if (!postgres || !redis || !nats) throw new Error('service resolution returned an incomplete set');
  for (const [name, handle] of Object.entries({ postgres, redis, nats })) {
    options.out(
      `[stack] ${name}: ${handle.kind === 'env' ? 'from environment' : handle.kind} at ${redact(handle.url)}`,
    );
  }

  const masterKey =
    options.env.MASTER_KEY ??
    loadOrCreateSecret(options.dataDir, 'master.key', () => randomBytes(32).toString('base64'));
  const adminKeyFile = join(options.dataDir, 'admin.key');
  const adminKey =
    options.env.BOOTSTRAP_ADMIN_KEY ??
    loadOrCreateSecret(options.dataDir, 'admin.key', () => `aigw_${randomBytes(32).toString('base64url')}`);
  const tokens = serviceTokens(options.env);
  let demoMock: MockProvider | undefined;
  if (options.demo) {
    try {
      demoMock = await startDemoProvider(options.demo.port);
    } catch (err) {
      await services.stopAll();
      throw err;
    }
  }
  const specs = appSpecs(
    ports,
    { databaseUrl: postgres.url, redisUrl: redis.url, natsUrl: nats.url },
    { masterKey, adminKey, ...tokens },
    // The demo integration's custom host is the mock on loopback, which gateways refuse by default.
    { inherited: options.env.CUSTOM_HOST_ALLOWLIST, add: demoMock ? ['127.0.0.1'] : [] },
  );
  const running: Supervised[] = [];
  let stopping = false;
  let reportCrash: (crash: { app: AppName; code: number | string }) => void = () => undefined;
  const crashed = new Promise<{ app: AppName; code: number | string }>((resolve) => {
    reportCrash = resolve;
  });

  const stop = async (graceMs = 10_000) => {
    stopping = true;
    const codes = await Promise.all(
      [...running].reverse().map(async (app) => [app.name, await app.stop(graceMs)]),
    );
    const exitCodes = Object.fromEntries(codes) as Record<AppName, number | string>;
    // Only now that no app runs: the gateway drained its calls to the demo provider, the apps their
    // Postgres, Redis and NATS work.
    options.out(`[stack] apps stopped: ${JSON.stringify(exitCodes)}`);
    await demoMock?.close();
    await services.stopAll();
    options.out('[stack] postgres, redis and nats stopped');
    return exitCodes;
  };

  let demo: DemoSetup | undefined;
  try {
    for (const spec of specs) {
      if (spec.name === 'gateway' && demoMock) {
        // Before the gateway starts, so its first snapshot already holds the demo provider and key.
        demo = await setUpDemo(demoMock, ports, adminKey, options);
      }
      const entry = join(options.rootDir, 'apps', spec.name, 'dist', 'main.js');
      if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`pnpm build\` first`);
      const flags = appNodeFlags(options.rootDir, spec.name);
      const env = { ...options.env, ...spec.env };
      const app = supervise(() => spawnApp(spec.name, entry, env, options.out, flags), {
        stopping: () => stopping,
        out: options.out,
        gaveUp: (code) => reportCrash({ app: spec.name, code }),
      });
      running.push(app);
      await waitReady(
        `http://127.0.0.1:${spec.httpPort}/readyz`,
        app.current,
        options.readyTimeoutMs ?? 60_000,
      );
    }
  } catch (err) {
    await stop(5_000);
    throw err;
  }

  options.out('[stack] ready:');
  options.out(`[stack]   gateway        http://127.0.0.1:${ports.gateway}/v1`);
  options.out(
    `[stack]   control plane  http://127.0.0.1:${ports.controlPlane}/v1  (gRPC 127.0.0.1:${ports.controlPlaneGrpc}, ${tokens.snapshotToken === null ? 'SNAPSHOT_SERVICE_AUTH from the environment' : 'token required'})`,
  );
  options.out(
    `[stack]   console        http://127.0.0.1:${ports.controlPlane}/console/  (sign in with ${options.env.BOOTSTRAP_ADMIN_KEY ? 'BOOTSTRAP_ADMIN_KEY' : `the key in ${adminKeyFile}`})`,
  );
  options.out(
    `[stack]   logger         http://127.0.0.1:${ports.logger}/metrics  (gRPC 127.0.0.1:${ports.loggerGrpc}, token required)`,
  );
  if (demoMock) {
    options.out(
      `[stack]   demo provider  ${demoMock.url}  (the mock provider: simulated answers, no real AI; AIGW_DEMO=0 turns it off)`,
    );
  }
  if (!options.env.BOOTSTRAP_ADMIN_KEY) {
    options.out(`[stack]   admin API key  in ${adminKeyFile}, e.g.`);
    options.out(
      `[stack]     curl -H "x-service-api-key: $(cat ${adminKeyFile})" http://127.0.0.1:${ports.controlPlane}/v1/organisation`,
    );
  }
  if (demo) {
    const urls = {
      gateway: `http://127.0.0.1:${ports.gateway}/v1`,
      controlPlane: `http://127.0.0.1:${ports.controlPlane}/v1`,
    };
    for (const line of demoBanner(demo, urls)) options.out(`[stack] ${line}`);
  }
  return { ports, crashed, stop };
}

/**
 * Creates what the demo needs through the admin API (only what is missing). A demo that cannot be
 * set up is said and skipped: it must never keep the stack from starting.
 */
async function setUpDemo(
  mock: MockProvider,
  ports: StackPorts,
  adminKey: string,
  options: StackOptions,
): Promise<DemoSetup | undefined> {
  try {
    const setup = await ensureDemo({
      admin: new AdminClient(`http://127.0.0.1:${ports.controlPlane}/v1`, adminKey),
      mockUrl: mock.url,
      dataDir: options.dataDir,
    });
    options.out(
      `[stack] demo: ${setup.created.length > 0 ? `created ${setup.created.join(', ')}` : 'reusing the @demo provider and key of an earlier start'}`,
    );
    return setup;
  } catch (err) {
    options.out(`[stack] demo: not set up: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

/** Exits within this window that make the stack give up on an app (and stop). */
export const MAX_CRASHES = 5;
export const CRASH_WINDOW_MS = 60_000;
const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 30_000;

interface Supervised {
  readonly name: string;
  /** The process running now (a new one after each restart). */
  readonly current: AppProcess;
  stop(graceMs: number): Promise<number | string>;
}

/**
 * Runs an app and starts it again when it exits on its own (a crash, a SIGKILL): one crashed app
 * must not take the whole stack down. Says so on the stack's output; gives up after MAX_CRASHES
 * exits within CRASH_WINDOW_MS.
 */
export function supervise(
  start: () => AppProcess,
  hooks: {
    stopping(): boolean;
    out(line: string): void;
    gaveUp(code: number | string): void;
  },
): Supervised {
  let current = start();
  const exits: number[] = [];
  let timer: NodeJS.Timeout | undefined;
  const watch = (app: AppProcess) => {
    void app.exited.then((code) => {
      if (hooks.stopping()) return;
      const now = Date.now();
      exits.push(now);
      while (exits.length > 0 && (exits[0] as number) < now - CRASH_WINDOW_MS) exits.shift();
      if (exits.length >= MAX_CRASHES) {
        hooks.out(
          `[stack] ${app.name} exited (${code}) ${exits.length} times within ${CRASH_WINDOW_MS / 1000} s: giving up`,
        );
        hooks.gaveUp(code);
        return;
      }
      const backoff = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (exits.length - 1));
      hooks.out(
        `[stack] ${app.name} exited (${code}); restarting it in ${backoff / 1000} s (crash ${exits.length} of ${MAX_CRASHES} allowed within ${CRASH_WINDOW_MS / 1000} s)`,
      );
      timer = setTimeout(() => {
        timer = undefined;
        if (hooks.stopping()) return;
        current = start();
        watch(current);
      }, backoff);
    });
  };
  watch(current);
  return {
    name: current.name,
    get current() {
      return current;
    },
    stop(graceMs) {
      clearTimeout(timer);
      return current.stop(graceMs);
    },
  };
}

/**
 * The internal gRPC tokens: from the environment when set there, else new for this run (the apps all
 * restart with the stack, so nothing needs to keep them). Never printed.
 */
export function serviceTokens(env: NodeJS.ProcessEnv): { snapshotToken: string | null; logsToken: string } {
  const fresh = () => randomBytes(32).toString('base64url');
  return {
    // An explicit SNAPSHOT_SERVICE_AUTH (the switch in words) is the operator's: the apps read it and
    // any token from the environment themselves.
    snapshotToken: env.SNAPSHOT_SERVICE_AUTH ? null : env.SNAPSHOT_SERVICE_TOKEN || fresh(),
    logsToken: env.LOGS_SERVICE_TOKEN || env.LOGGER_SERVICE_TOKEN || fresh(),
  };
}

/** A secret kept in the data directory (owner-only), created on first start. */
function loadOrCreateSecret(dataDir: string, name: string, create: () => string): string {
  const file = join(dataDir, name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = create();
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}
