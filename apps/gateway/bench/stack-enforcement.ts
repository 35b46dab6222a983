// The full-enforcement bench target: the whole stack as `pnpm start` runs it (startStack from
// packages/stack: Postgres, Redis and NATS local, then the compiled control plane, logger and
// gateway), set up through the admin API with a workspace, an integration pointing at the bench's
// mock, a requests rate-limit policy, a cost usage limit (budget) and a service key. Every request
// then pays key auth, both limits and a request event that the logger writes to Postgres.
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@aigw/testkit/services';
import { type Stack, startStack } from '../../../packages/stack/src/index.js';
import { pinProxy } from './pinning.js';
import { descendants } from './proc.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
/** Never reached in a bench run: the policies are paid for on every request and never refuse. */
const NEVER_REQUESTS = 1_000_000_000_000;
const NEVER_USD = 1_000_000_000;

export interface StackEnforcement {
  readonly url: string;
  readonly pid: number;
  /** Headers of every request: the service key and the managed provider. */
  readonly headers: Record<string, string>;
  /** The stack's other processes, by name (read when called: Postgres forks per connection). */
  readonly others: Record<string, () => readonly number[]>;
  /**
   * Stops (SIGSTOP) and resumes (SIGCONT) the logger: the gateway's work is the same (its events
   * wait in JetStream), while the logger's share of the other core is spent after the step.
   */
  pauseLogger(): void;
  resumeLogger(): void;
  /**
   * Proof that the budget and the events did their work: what the budget has counted for the key
   * (USD) and how many requests the logger has written to Postgres, as the admin API reports them.
   */
  evidence(): Promise<{ budgetUsd: unknown; loggedRequests: unknown }>;
  stop(): Promise<void>;
}

/** The apps the stack runs from dist/: all must be built (`pnpm build`), as `pnpm start` does first. */
export function missingBuilds(): string[] {
  return ['gateway', 'control-plane', 'logger']
    .map((app) => join(root, 'apps', app, 'dist', 'main.js'))
    .filter((entry) => !existsSync(entry));
}

export async function startStackEnforcement(mockUrl: string): Promise<StackEnforcement> {
  const missing = missingBuilds();
  if (missing.length > 0) throw new Error(`${missing.join(', ')} missing: run \`pnpm build\` first`);
  const dataDir = mkdtempSync(join(tmpdir(), 'aigw-bench-stack-'));
  // Postgres runs as its own user when we are root: it must be able to enter the directory.
  chmodSync(dataDir, 0o711);
  // Services of its own (no *_URL from the environment): they must start from this process to
  // inherit its cores. LOG_LEVEL warn: a log line per request would be a cost of its own.
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', CUSTOM_HOST_ALLOWLIST: '127.0.0.1' };
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'NATS_URL', 'PORT', 'GRPC_PORT', 'MASTER_KEY'])
    delete env[name];
  delete env.BOOTSTRAP_ADMIN_KEY;
  const log: string[] = [];
  let appLines = 0;
  const out = (line: string) => {
    log.push(line);
    if (log.length > 200) log.shift();
    // The apps log warnings and errors only: show the first ones, count the rest.
    if (!line.startsWith('[stack]') && ++appLines <= 20) process.stderr.write(`${line}\n`);
  };
  const before = new Set(descendants().map((p) => p.pid));
  let stack: Stack;
  try {
    stack = await startStack({
      rootDir: root,
      dataDir,
      env,
      ports: {
        gateway: await freePort(),
        controlPlane: await freePort(),
        controlPlaneGrpc: await freePort(),
        logger: await freePort(),
        loggerGrpc: await freePort(),
      },
      out,
    });
  } catch (err) {
    process.stderr.write(`${log.join('\n')}\n`);
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  let loggerPid: number | undefined;
  const signalLogger = (signal: NodeJS.Signals) => {
    if (loggerPid !== undefined) process.kill(loggerPid, signal);
  };
  const stop = async () => {
    signalLogger('SIGCONT'); // a paused logger could not stop
    await stack.stop(5_000);
    if (appLines > 20) process.stderr.write(`(${appLines - 20} more lines from the stack's apps)\n`);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const started = descendants().filter((p) => !before.has(p.pid));
    const app = (name: string) =>
      started.find((p) => p.cmdline.includes(join('apps', name, 'dist', 'main.js')))?.pid;
    const gatewayPid = app('gateway');
    if (gatewayPid === undefined) throw new Error('the stack started no gateway process');
    const byComm = (comm: string) => () =>
      descendants()
        .filter((p) => p.comm === comm && !before.has(p.pid))
        .map((p) => p.pid);
    const others = {
      postgres: byComm('postgres'),
      redis: byComm('redis-server'),
      'stack nats': byComm('nats-server'),
      logger: () => [app('logger')].filter((pid) => pid !== undefined),
      'control plane': () => [app('control-plane')].filter((pid) => pid !== undefined),
    };

    loggerPid = app('logger');

    const adminKey = readFileSync(join(dataDir, 'admin.key'), 'utf8').trim();
    const admin = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`http://127.0.0.1:${stack.ports.controlPlane}/v1${path}`, {
        method,
        headers: { 'x-service-api-key': adminKey, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(10_000),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`admin ${method} ${path}: ${res.status} ${text}`);
      return JSON.parse(text);
    };
    const workspace = await admin('POST', '/workspaces', { name: `bench ${randomUUID().slice(0, 8)}` });
    const integration = await admin('POST', '/integrations', {
      name: 'bench mock',
      ai_provider: 'openai',
      credentials: { api_key: 'sk-bench-managed' },
      options: { custom_host: `${mockUrl}/v1` },
      workspaces: [{ id: workspace.id }],
    });
    const inWorkspace = [{ key: 'workspace_id', value: workspace.id }];
    await admin('POST', '/policies/rate-limits', {
      name: 'bench requests per key',
      type: 'requests',
      unit: 'rpm',
      value: NEVER_REQUESTS,
      conditions: inWorkspace,
      group_by: [{ key: 'api_key' }],
      workspace_id: workspace.id,
    });
    const budget = await admin('POST', '/policies/usage-limits', {
      name: 'bench budget per key',
      type: 'cost',
      credit_limit: NEVER_USD,
      conditions: inWorkspace,
      group_by: [{ key: 'api_key' }],
      workspace_id: workspace.id,
    });
    // Made last: once the gateway knows the key, it knows the policies made before it.
    const key = await admin('POST', '/api-keys/workspace/service', {
      name: 'bench',
      workspace_id: workspace.id,
      scopes: ['completions.write'],
    });
    const url = `http://127.0.0.1:${stack.ports.gateway}`;
    const headers = { 'x-service-api-key': key.key as string, 'x-service-provider': `@${integration.slug}` };
    await probe(url, headers);
    pinProxy(gatewayPid, 'the stack gateway');
    return {
      url,
      pid: gatewayPid,
      headers,
      others,
      pauseLogger: () => signalLogger('SIGSTOP'),
      resumeLogger: () => signalLogger('SIGCONT'),
      evidence: async () => {
        const read = async <T>(path: string, pick: (body: T) => unknown) => {
          try {
            return pick((await admin('GET', path)) as T);
          } catch (err) {
            return `unknown (${err instanceof Error ? err.message : String(err)})`;
          }
        };
        return {
          budgetUsd: await read(
            `/policies/usage-limits/${budget.id}/entities`,
            (body: { data: { id: string; current_usage: number | null }[] }) =>
              body.data.find((e) => e.id === key.id)?.current_usage,
          ),
          loggedRequests: await read('/analytics/summary', (body: { requests: number }) => body.requests),
        };
      },
      stop,
    };
  } catch (err) {
    process.stderr.write(`${log.slice(-40).join('\n')}\n`);
    await stop();
    throw err;
  }
}

/**
 * Until the gateway has the key (its snapshot comes from the control plane), then one request must
 * pass and carry the rate-limit policy's headers: a refused or unenforced request would make every
 * figure meaningless. Bounded at 60 s (a hang guard).
 */
async function probe(url: string, headers: Record<string, string>): Promise<void> {
  const deadline = Date.now() + 60_000;
  let last = '';
  while (Date.now() < deadline) {
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'ping' }] }),
      signal: AbortSignal.timeout(10_000),
    });
    last = `${res.status} ${await res.text()}`;
    if (res.status === 200) {
      if (res.headers.get('x-ratelimit-limit-requests') !== String(NEVER_REQUESTS))
        throw new Error('stack probe: the requests policy did not apply (no x-ratelimit-limit-requests)');
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`stack probe: the gateway never admitted the bench key: ${last}`);
}
