// Diagnosis of the full-enforcement gap: the stack's gateway (`pnpm start`'s, bench/stack-enforcement.ts)
// against the light enforcement gateway (bench/enforcement-gateway.ts: same policies, a last-known-good
// snapshot, its own redis-server), both compiled (dist/main.js), loaded in interleaved slices at one
// fixed request rate so that both see the same background load and the same batching. Prints each
// one's median CPU per request and the median per-slice ratio stack/light.
// GAP_PROFILE_DIR: both gateways are CPU-profiled (<dir>/light, <dir>/stack, through
// cpu-prof-preload.cjs); compare them with profile-diff.ts and the printed CPU per request. The stack's logger is paused (SIGSTOP) during the
// slices, as in proxy-load.ts. GAP_SLICES (default 12), GAP_SLICE_S (2), GAP_RATE (1000 req/s),
// (0: as fast as they go), GAP_CONNECTIONS (32), GAP_ALL=1 (the bare proxy and the pass-through too).
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEnforcementGateway } from './enforcement-gateway.js';
import { load, type Row, startBench } from './harness.js';
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
profiled('light');
const light = await startEnforcementGateway({ mockUrl: bench.mock.url, natsUrl: bench.nats.url, entry });
profiled('stack');
const stack = await startStackEnforcement(bench.mock.url);
for (const [name, value] of [
  ['NODE_OPTIONS', saved.options],
  ['CPU_PROF_MATCH', saved.match],
  ['CPU_PROF_DIR', saved.dir],
] as const) {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}
console.log(`light gateway pid ${light.pid}, stack gateway pid ${stack.pid}`);

type Name = 'bare' | 'plain' | 'light' | 'stack';
type Slice = { row: Row; redis: number };
const rows: Record<Name, Slice[]> = { bare: [], plain: [], light: [], stack: [] };
const served: Record<Name, number> = { bare: 0, plain: 0, light: 0, stack: 0 };
const targets: Record<Name, { url: string; pid: number | undefined; headers: Record<string, string> }> = {
  bare: { url: bench.bare.url, pid: bench.bare.pid, headers: {} },
  plain: { url: `${bench.gateway.url}/v1`, pid: bench.gateway.pid, headers: bench.gatewayHeaders },
  light: { url: `${light.url}/v1`, pid: light.pid, headers: light.headers },
  stack: { url: `${stack.url}/v1`, pid: stack.pid, headers: stack.headers },
};
// GAP_ALL=1: the bare proxy and the pass-through gateway take part in every slice too.
const names: Name[] = process.env.GAP_ALL === '1' ? ['bare', 'plain', 'light', 'stack'] : ['light', 'stack'];
const run = async (name: Name): Promise<Slice> => {
  const gw = targets[name];
  const redisPids =
    name === 'light' ? [light.redisPid ?? -1] : name === 'stack' ? (stack.others.redis?.() ?? []) : [];
  const redis0 = cpuMicrosOf(redisPids);
  if (name === 'stack') stack.pauseLogger();
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
        ...(name === 'light' ? { others: { redis: () => [light.redisPid ?? -1] } } : {}),
      },
      rate > 0 ? rate : undefined,
    );
    served[name] += row.total;
    return { row, redis: Math.round((cpuMicrosOf(redisPids) - redis0) / Math.max(1, row.total)) };
  } finally {
    if (name === 'stack') stack.resumeLogger();
  }
};
try {
  // Warm-up: JIT, pools, the plan and price caches.
  for (let w = 0; w < 3; w++) for (const name of names) await run(name);
  for (let i = 0; i < slices; i++) {
    const order = i % 2 === 0 ? names : [...names].reverse();
    for (const name of order) rows[name].push(await run(name));
  }
} finally {
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
        return `${name} ${x?.row.cpuPerRequest} µs (${x?.row.proxyCorePct}% core, ${x?.row.writesPerRequest} writes, ${x?.row.rps} rps, p50 ${x?.row.p50} ms, errors ${x?.row.errors}; around µs/req: nats ${x?.row.natsCpuPerRequest} ${around})`;
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
