// Diagnosis on a shared, noisy machine: two gateway builds (A = the sources, B = a compiled copy of
// an earlier build, e.g. `cp -r dist /tmp/base/dist`) and the bare proxy, loaded in short
// interleaved slices so that all three see the same background load; prints the median CPU per
// request of each and the median of the per-slice ratios B/A. Usage:
//   AB_B=/tmp/base/dist/main.js [AB_SLICES=12] [AB_SLICE_S=2] [AB_WARM=3] [AB_RATE=1500] [PROFILE_SCENARIO=stream] \
//   [PROFILE_CONFIG=fallback]  (requests with a config of two targets, as cpu-per-request.ts's) \
//   tsx --conditions=@aigw/source bench/ab.ts
import { benchConfigHeaders, load, type Row, startBench } from './harness.js';

const stream = process.env.PROFILE_SCENARIO === 'stream';
const connections = Number(process.env.PROFILE_CONNECTIONS ?? 32);
const slices = Number(process.env.AB_SLICES ?? 12);
const sliceS = Number(process.env.AB_SLICE_S ?? 2);
const entryB = process.env.AB_B;
/** AB_RATE: a fixed request rate for all three, so that CPU per request compares at equal load. */
const rate = process.env.AB_RATE ? Number(process.env.AB_RATE) : undefined;
if (!entryB) throw new Error('set AB_B to a compiled gateway main.js');

// AB_PROFILE_DIR: CPU profiles of A and B (in <dir>/a and <dir>/b) for profile-summary.
const profileDir = process.env.AB_PROFILE_DIR;
const prof = (sub: string) => (profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}/${sub}`] : []);
const bench = await startBench({
  events: !process.env.BENCH_NO_EVENTS,
  compareEntry: entryB,
  gatewayNodeArgs: prof('a'),
  compareNodeArgs: prof('b'),
});
const compare = bench.compare;
if (!compare) throw new Error('compared gateway did not start');
if (process.env.PROFILE_CONFIG !== undefined && process.env.PROFILE_CONFIG !== 'fallback') {
  throw new Error('ab.ts takes PROFILE_CONFIG=fallback only (cpu-per-request.ts primes a cache)');
}
const gatewayHeaders = process.env.PROFILE_CONFIG
  ? benchConfigHeaders('fallback', bench.mock.url)
  : bench.gatewayHeaders;
const path = '/chat/completions';
const targets = {
  bare: () =>
    load('bare', `${bench.bare.url}${path}`, {}, stream, connections, sliceS, { proxy: bench.bare.pid }),
  a: () =>
    load(
      'a',
      `${bench.gateway.url}/v1${path}`,
      gatewayHeaders,
      stream,
      connections,
      sliceS,
      {
        proxy: bench.gateway.pid,
        nats: bench.nats.pid,
      },
      rate,
    ),
  b: () =>
    load(
      'b',
      `${compare.url}/v1${path}`,
      gatewayHeaders,
      stream,
      connections,
      sliceS,
      {
        proxy: compare.pid,
        nats: bench.nats.pid,
      },
      rate,
    ),
};
const rows: Record<keyof typeof targets, Row[]> = { bare: [], a: [], b: [] };
const warmup: Record<keyof typeof targets, number> = { bare: 0, a: 0, b: 0 };
try {
  // Warm-up (JIT, pools): AB_WARM rounds of one slice each (default 3; the first slices of a
  // shorter warm-up still show a cold gateway).
  for (let w = 0; w < Number(process.env.AB_WARM ?? 3); w++) {
    for (const [name, run] of Object.entries(targets))
      warmup[name as keyof typeof targets] += (await run()).total;
  }
  const orders: (keyof typeof targets)[][] = [
    ['bare', 'a', 'b'],
    ['b', 'a', 'bare'],
    ['a', 'bare', 'b'],
  ];
  for (let i = 0; i < slices; i++) {
    for (const name of orders[i % orders.length] ?? []) rows[name].push(await targets[name]());
  }
} finally {
  await bench.stop();
}
const median = (values: number[]) => {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};
// Per slice, in run order: what the medians come from (a noisy machine shows up here).
console.log(
  rows.a
    .map(
      (a, i) =>
        `slice ${i}: bare ${rows.bare[i]?.cpuPerRequest} A ${a.cpuPerRequest} B ${rows.b[i]?.cpuPerRequest} µs/req ` +
        `(nats-server A ${a.natsCpuPerRequest} B ${rows.b[i]?.natsCpuPerRequest}); ` +
        `writes/req bare ${rows.bare[i]?.writesPerRequest} A ${a.writesPerRequest} B ${rows.b[i]?.writesPerRequest}, ` +
        `reads/req A ${a.readsPerRequest} B ${rows.b[i]?.readsPerRequest}`,
    )
    .join('\n'),
);
const cpu = (name: keyof typeof targets) => median(rows[name].map((r) => r.cpuPerRequest));
const rps = (name: keyof typeof targets) => median(rows[name].map((r) => r.rps));
const nats = (name: keyof typeof targets) => median(rows[name].map((r) => r.natsCpuPerRequest));
const perSlice = (f: (i: number) => number) => median(rows.a.map((_, i) => f(i)));
console.log(
  `${process.env.PROFILE_CONFIG ? 'config fallback' : stream ? 'stream' : 'json'} @${connections}, ${slices} x ${sliceS} s, medians: ` +
    `bare ${cpu('bare')} µs/req ${rps('bare')} rps | A (sources) ${cpu('a')} µs/req ${rps('a')} rps | ` +
    `B (${entryB}) ${cpu('b')} µs/req ${rps('b')} rps | nats-server per request A ${nats('a')} B ${nats('b')} µs`,
);
console.log(
  `per-slice medians: CPU A/B ${perSlice((i) => (rows.a[i]?.cpuPerRequest ?? 0) / (rows.b[i]?.cpuPerRequest ?? 1)).toFixed(3)}, ` +
    `throughput A/bare ${(perSlice((i) => (rows.a[i]?.rps ?? 0) / (rows.bare[i]?.rps ?? 1)) * 100).toFixed(1)}%, ` +
    `B/bare ${(perSlice((i) => (rows.b[i]?.rps ?? 0) / (rows.bare[i]?.rps ?? 1)) * 100).toFixed(1)}%`,
);
const served = (name: keyof typeof targets) => warmup[name] + rows[name].reduce((n, r) => n + r.total, 0);
console.log(`requests served (warm-up included): bare ${served('bare')}, A ${served('a')}, B ${served('b')}`);
