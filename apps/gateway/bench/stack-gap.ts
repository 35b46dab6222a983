// Diagnosis of the full-enforcement gap: the stack's gateway (`pnpm start`'s, bench/stack-enforcement.ts)
// against the light enforcement gateway (bench/enforcement-gateway.ts: same policies, a last-known-good
// snapshot, its own redis-server), both compiled (dist/main.js), loaded in interleaved slices so that
// both see the same background load. Prints each slice, each one's median CPU per request and the
// median per-slice ratio stack/light, both redis-servers' script calls and the degraded decisions.
// The stack's logger is paused (SIGSTOP) during the stack's slices, as in proxy-load.ts.
// Settings: GAP_SLICES (default 12), GAP_SLICE_S (2), GAP_RATE (1000 req/s for all connections
// together; 0: as fast as they go), GAP_CONNECTIONS (32); GAP_ALL=1 loads the bare proxy and the
// pass-through in the same slices; GAP_PROFILE_DIR profiles both gateways the same way (<dir>/light,
// <dir>/stack, through cpu-prof-preload.cjs: compare them with profile-diff.ts and the printed CPU
// per request); GAP_STACK_AOF=off stops the stack's redis-server writing its append-only file;
// GAP_LIGHT_ON_STACK=1 points the light gateway at the stack's redis-server and nats-server;
// GAP_LIGHT_STACK_SNAPSHOT=1 replaces it with a gateway of its own services on the stack's snapshot.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startLocalRedis } from '@aigw/testkit/services';
import { startEnforcementGateway } from './enforcement-gateway.js';
import { load, type Row, startBench, waitHttp } from './harness.js';
import { pinProxy } from './pinning.js';
import { cpuMicrosOf } from './proc.js';
import { startStackEnforcement } from './stack-enforcement.js';

const slices = Number(process.env.GAP_SLICES ?? 12);
const sliceS = Number(process.env.GAP_SLICE_S ?? 2);
const rate = Number(process.env.GAP_RATE ?? 1000);
const connections = Number(process.env.GAP_CONNECTIONS ?? 32);
const profileDir = process.env.GAP_PROFILE_DIR;
const entry = fileURLToPath(new URL('../dist/main.js', import.meta.url));

const median = (values: number[]) => {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

const bench = await startBench({ events: true });
// Both gateways are profiled the same way, through cpu-prof-preload.cjs: the stack passes its
// environment to its apps (and to its services' reapers), and NODE_OPTIONS refuses --cpu-prof.
const preload = fileURLToPath(new URL('./cpu-prof-preload.cjs', import.meta.url));
const profiled = (dir: string) => {
  if (!profileDir) return;
  process.env.NODE_OPTIONS = `--require ${preload}`;
  process.env.CPU_PROF_MATCH = join('apps', 'gateway', 'dist', 'main.js');
  process.env.CPU_PROF_DIR = join(profileDir, dir);
};
const saved = {
  options: process.env.NODE_OPTIONS,
  match: process.env.CPU_PROF_MATCH,
  dir: process.env.CPU_PROF_DIR,
};
// GAP_LIGHT_ON_STACK=1: the light gateway uses the stack's redis-server and nats-server instead of its
// own (through redis-url-preload.cjs), to tell the stack's services from the stack's gateway.
const onStack = process.env.GAP_LIGHT_ON_STACK === '1';
const portOf = (pid: number, pattern: RegExp) =>
  readFileSync(`/proc/${pid}/cmdline`, 'utf8').match(pattern)?.[1];
profiled('stack');
const stack = await startStackEnforcement(bench.mock.url);
const stackRedisPid = stack.others.redis?.()[0] ?? -1;
const stackNatsPid = stack.others['stack nats']?.()[0] ?? -1;
profiled('light');
if (onStack) process.env.GAP_REDIS_URL = `redis://127.0.0.1:${portOf(stackRedisPid, /:(\d+)/)}`;
const light = await startEnforcementGateway({
  mockUrl: bench.mock.url,
  natsUrl: onStack ? `nats://127.0.0.1:${portOf(stackNatsPid, /-p\0(\d+)/)}` : bench.nats.url,
  entry,
  nodeArgs: onStack ? ['--require', fileURLToPath(new URL('./redis-url-preload.cjs', import.meta.url))] : [],
});
delete process.env.GAP_REDIS_URL;
// GAP_LIGHT_STACK_SNAPSHOT=1: the light target is instead a gateway started like the light one (its
// own redis-server, the bench's NATS) that takes its snapshot from the stack's control plane (the
// stack gateway's token and master key), called with the stack's key and provider: the stack's
// entities, loaded whole at startup, without the stack's services. (The stack gateway's own
// last-known-good file will not do: it is written after full loads, so it predates the bench's
// workspace, key and policies, which reached the gateway as changes.)
const copy =
  process.env.GAP_LIGHT_STACK_SNAPSHOT === '1'
    ? await startFromStackSnapshot().catch(async (err: unknown) => {
        await stack.stop();
        await light.stop();
        await bench.stop();
        throw err;
      })
    : undefined;
async function startFromStackSnapshot() {
  const environ = Object.fromEntries(
    readFileSync(`/proc/${stack.pid}/environ`, 'utf8')
      .split('\0')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
  const dir = mkdtempSync(join(tmpdir(), 'aigw-bench-gap-'));
  const redis = await startLocalRedis();
  const port = await freePort();
  // Not harness.start(): that waits for a first line of output, and this gateway has nothing to warn about.
  const child = spawn(process.execPath, [entry], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      NATS_URL: bench.nats.url,
      REDIS_URL: redis.url,
      CONTROL_PLANE_GRPC_URL: environ.CONTROL_PLANE_GRPC_URL ?? '',
      SNAPSHOT_SERVICE_TOKEN: environ.SNAPSHOT_SERVICE_TOKEN ?? '',
      SNAPSHOT_LKG_PATH: join(dir, 'snapshot-v1.lkg'),
      MASTER_KEY: environ.MASTER_KEY ?? '',
      CUSTOM_HOST_ALLOWLIST: '127.0.0.1',
      EVENT_SPOOL_DIR: join(dir, 'spool'),
    },
  });
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitHttp(`http://127.0.0.1:${port}/readyz`);
    // A refused request would make the figures meaningless.
    const probe = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...stack.headers },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'ping' }] }),
    });
    const answer = await probe.text();
    if (probe.status !== 200 || !probe.headers.get('x-ratelimit-limit-requests'))
      throw new Error(`gateway from the stack snapshot: probe ${probe.status} ${answer}`);
  } catch (err) {
    await stop();
    throw err;
  }
  pinProxy(child.pid, 'the gateway from the stack snapshot');
  console.log(`gateway from the stack's snapshot: pid ${child.pid}`);
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    redisPid: redis.pid,
    stop,
  };
}
const lightRedisPid = copy ? (copy.redisPid ?? -1) : onStack ? stackRedisPid : (light.redisPid ?? -1);
if (onStack)
  console.log(`light gateway on the stack's redis-server ${stackRedisPid} and nats-server ${stackNatsPid}`);
for (const [name, value] of [
  ['NODE_OPTIONS', saved.options],
  ['CPU_PROF_MATCH', saved.match],
  ['CPU_PROF_DIR', saved.dir],
] as const) {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}
console.log(`light gateway pid ${light.pid}, stack gateway pid ${stack.pid}`);
// GAP_STACK_AOF=off: the stack's redis-server (persistent: appendonly yes, as `pnpm start` runs it)
// stops writing its append-only file, like the light gateway's throwaway one.
if (process.env.GAP_STACK_AOF === 'off') {
  for (const pid of stack.others.redis?.() ?? []) {
    const port = readFileSync(`/proc/${pid}/cmdline`, 'utf8').match(/:(\d+)/)?.[1];
    const set = spawnSync('redis-cli', ['-p', String(port), 'config', 'set', 'appendonly', 'no'], {
      encoding: 'utf8',
    });
    console.log(
      `stack redis-server ${pid} (port ${port}): appendonly no: ${set.stdout.trim()} ${set.stderr.trim()}`,
    );
  }
}

type Name = 'bare' | 'plain' | 'light' | 'stack';
type Slice = { row: Row; redis: number };
const rows: Record<Name, Slice[]> = { bare: [], plain: [], light: [], stack: [] };
const served: Record<Name, number> = { bare: 0, plain: 0, light: 0, stack: 0 };
const targets: Record<Name, { url: string; pid: number | undefined; headers: Record<string, string> }> = {
  bare: { url: bench.bare.url, pid: bench.bare.pid, headers: {} },
  plain: { url: `${bench.gateway.url}/v1`, pid: bench.gateway.pid, headers: bench.gatewayHeaders },
  light: copy
    ? { url: `${copy.url}/v1`, pid: copy.pid, headers: stack.headers }
    : { url: `${light.url}/v1`, pid: light.pid, headers: light.headers },
  stack: { url: `${stack.url}/v1`, pid: stack.pid, headers: stack.headers },
};
// GAP_ALL=1: the bare proxy and the pass-through gateway take part in every slice too.
const names: Name[] = process.env.GAP_ALL === '1' ? ['bare', 'plain', 'light', 'stack'] : ['light', 'stack'];
const run = async (name: Name): Promise<Slice> => {
  const gw = targets[name];
  const redisPids =
    name === 'light' ? [lightRedisPid] : name === 'stack' ? (stack.others.redis?.() ?? []) : [];
  const redis0 = cpuMicrosOf(redisPids);
  // The logger would consume the light gateway's events too when it shares the stack's NATS.
  const pause = name === 'stack' || (onStack && name === 'light');
  if (pause) stack.pauseLogger();
  try {
    const row = await load(
      name,
      `${gw.url}/chat/completions`,
      gw.headers,
      false,
      connections,
      sliceS,
      {
        proxy: gw.pid,
        nats: bench.nats.pid,
        ...(name === 'stack' ? { others: stack.others } : {}),
        ...(name === 'light' ? { others: { redis: () => [lightRedisPid] } } : {}),
      },
      rate > 0 ? rate : undefined,
    );
    served[name] += row.total;
    return { row, redis: Math.round((cpuMicrosOf(redisPids) - redis0) / Math.max(1, row.total)) };
  } finally {
    if (pause) stack.resumeLogger();
  }
};
try {
  // Warm-up: JIT, pools, the plan and price caches.
  for (let w = 0; w < 3; w++) for (const name of names) await run(name);
  for (let i = 0; i < slices; i++) {
    const order = i % 2 === 0 ? names : [...names].reverse();
    for (const name of order) rows[name].push(await run(name));
  }
  // What each redis-server ran: script calls and their time (the gateway's batching shows in calls per request).
  const redisPort = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').match(/:(\d+)/)?.[1];
  for (const [name, pids] of [
    ['light', [lightRedisPid]],
    ['stack', stack.others.redis?.() ?? []],
  ] as const) {
    for (const pid of pids) {
      const info = spawnSync('redis-cli', ['-p', String(redisPort(pid)), 'info', 'commandstats'], {
        encoding: 'utf8',
      });
      const lines = info.stdout
        .split('\n')
        .filter((line) => /^cmdstat_(evalsha|eval|fcall|evalsha_ro)/.test(line));
      console.log(`${name} redis-server: ${lines.join('; ').trim() || info.stderr.trim()}`);
    }
  }
  // Limit decisions taken without Redis (it did not answer in time) follow another path: count them.
  for (const name of ['light', 'stack'] as const) {
    const text = await (await fetch(`${targets[name].url.replace(/\/v1$/, '')}/metrics`)).text();
    const lines = text
      .split('\n')
      .filter((line) => line.startsWith('gateway_limits_degraded_decisions_total'));
    console.log(`${name} degraded decisions: ${lines.join('; ') || 'none'}`);
  }
} finally {
  await copy?.stop();
  await stack.stop();
  await light.stop();
  await bench.stop();
}
for (let i = 0; i < slices; i++) {
  console.log(
    `slice ${i}: ${names
      .map((name) => {
        const x = rows[name][i];
        const around = Object.entries(x?.row.othersCpuPerRequest ?? {})
          .map(([k, v]) => `${k} ${v}`)
          .join(' ');
        return `${name} ${x?.row.cpuPerRequest} µs (${x?.row.proxyCorePct}% core, cores busy: proxy ${x?.row.proxyCoresBusyPct}% other ${x?.row.otherCoresBusyPct}%, ${x?.row.writesPerRequest} writes, ${x?.row.rps} rps, p50 ${x?.row.p50} ms, errors ${x?.row.errors}; around µs/req: nats ${x?.row.natsCpuPerRequest} ${around})`;
      })
      .join(', ')}`,
  );
}
if (names.includes('bare'))
  for (const name of ['plain', 'light', 'stack'] as const)
    console.log(
      `${name}: median ${median(rows[name].map((r) => r.row.cpuPerRequest))} µs, median per-slice ratio to the bare proxy ` +
        `${median(rows[name].map((r, i) => r.row.cpuPerRequest / (rows.bare[i]?.row.cpuPerRequest ?? 1))).toFixed(3)}, ` +
        `median per-slice µs above the pass-through ${median(rows[name].map((r, i) => r.row.cpuPerRequest - (rows.plain[i]?.row.cpuPerRequest ?? 0)))}`,
    );
const cpu = (s: Slice[]) => median(s.map((r) => r.row.cpuPerRequest));
const ratio = median(rows.light.map((x, i) => (rows.stack[i]?.row.cpuPerRequest ?? 0) / x.row.cpuPerRequest));
console.log(
  `at ${rate > 0 ? `${rate} req/s` : 'full speed'}, ${connections} connections, ${slices} slices of ${sliceS} s: gateway CPU per request ` +
    `light ${cpu(rows.light)} µs, stack ${cpu(rows.stack)} µs, median stack/light ${ratio.toFixed(3)}; ` +
    `redis-server light ${median(rows.light.map((r) => r.redis))} µs, stack ${median(rows.stack.map((r) => r.redis))} µs; ` +
    `write syscalls per request light ${median(rows.light.map((r) => r.row.writesPerRequest))}, stack ${median(rows.stack.map((r) => r.row.writesPerRequest))}; ` +
    `requests served in the slices: light ${served.light}, stack ${served.stack}`,
);
