// Diagnosis on a shared, noisy machine: two gateway builds (A = the sources, B = a compiled copy of
// an earlier build, e.g. `cp -r dist /tmp/base/dist`) and the bare proxy, loaded in short
// interleaved slices so that all three see the same background load; prints the median CPU per
// request of each and the median of the per-slice ratios B/A. Usage:
//   AB_B=/tmp/base/dist/main.js [AB_SLICES=12] [AB_SLICE_S=2] [PROFILE_SCENARIO=stream] \
//   tsx --conditions=@aigw/source bench/ab.ts
import { load, type Row, startBench } from './harness.js';

const stream = process.env.PROFILE_SCENARIO === 'stream';
const connections = Number(process.env.PROFILE_CONNECTIONS ?? 32);
const slices = Number(process.env.AB_SLICES ?? 12);
const sliceS = Number(process.env.AB_SLICE_S ?? 2);
const entryB = process.env.AB_B;
if (!entryB) throw new Error('set AB_B to a compiled gateway main.js');

const bench = await startBench({ events: !process.env.BENCH_NO_EVENTS, compareEntry: entryB });
const compare = bench.compare;
if (!compare) throw new Error('compared gateway did not start');
const path = '/chat/completions';
const targets = {
  bare: () => load('bare', `${bench.bare.url}${path}`, {}, stream, connections, sliceS, { proxy: bench.bare.pid }),
  a: () =>
    load('a', `${bench.gateway.url}/v1${path}`, bench.gatewayHeaders, stream, connections, sliceS, {
      proxy: bench.gateway.pid,
      nats: bench.nats.pid,
    }),
  b: () =>
    load('b', `${compare.url}/v1${path}`, bench.gatewayHeaders, stream, connections, sliceS, {
      proxy: compare.pid,
      nats: bench.nats.pid,
    }),
};
const rows: Record<keyof typeof targets, Row[]> = { bare: [], a: [], b: [] };
try {
  for (const run of Object.values(targets)) await run(); // warm-up
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
const cpu = (name: keyof typeof targets) => median(rows[name].map((r) => r.cpuPerRequest));
const rps = (name: keyof typeof targets) => median(rows[name].map((r) => r.rps));
const perSlice = (f: (i: number) => number) => median(rows.a.map((_, i) => f(i)));
console.log(
  `${stream ? 'stream' : 'json'} @${connections}, ${slices} x ${sliceS} s, medians: ` +
    `bare ${cpu('bare')} µs/req ${rps('bare')} rps | A (sources) ${cpu('a')} µs/req ${rps('a')} rps | ` +
    `B (${entryB}) ${cpu('b')} µs/req ${rps('b')} rps`,
);
console.log(
  `per-slice medians: CPU A/B ${perSlice((i) => (rows.a[i]?.cpuPerRequest ?? 0) / (rows.b[i]?.cpuPerRequest ?? 1)).toFixed(3)}, ` +
    `throughput A/bare ${(perSlice((i) => (rows.a[i]?.rps ?? 0) / (rows.bare[i]?.rps ?? 1)) * 100).toFixed(1)}%, ` +
    `B/bare ${(perSlice((i) => (rows.b[i]?.rps ?? 0) / (rows.bare[i]?.rps ?? 1)) * 100).toFixed(1)}%`,
);
