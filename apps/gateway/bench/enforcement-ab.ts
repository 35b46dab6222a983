// Diagnosis on a shared, noisy machine: two enforcement gateways (A = the sources, B = another entry,
// e.g. a copy of an earlier src/ under apps/gateway/.aigw/) each with its own redis-server, loaded in
// short interleaved slices at one fixed request rate, so that both see the same background load and
// the same batching; prints the median CPU per request of each (gateway and redis-server) and the
// median of the per-slice ratios B/A. Usage:
//   ENFORCEMENT_B_ENTRY=$PWD/.aigw/ab-base/src/main.ts [AB_SLICES=16] [AB_SLICE_S=2] [AB_RATE=800] \
//   [AB_CONNECTIONS=32] tsx --conditions=@aigw/source bench/enforcement-ab.ts
// ENFORCEMENT_ENTRY runs A from another entry too (a compiled dist/main.js runs without tsx);
// ENFORCEMENT_B_NODE_ARGS adds node flags to B (A/B of a runtime flag: both entries the same).
import { startEnforcementGateway } from './enforcement-gateway.js';
import { cpuMicros, load, type Row, startBench } from './harness.js';

const slices = Number(process.env.AB_SLICES ?? 16);
const sliceS = Number(process.env.AB_SLICE_S ?? 2);
const rate = Number(process.env.AB_RATE ?? 800);
const connections = Number(process.env.AB_CONNECTIONS ?? 32);
const entryB = process.env.ENFORCEMENT_B_ENTRY;
if (!entryB) throw new Error('set ENFORCEMENT_B_ENTRY to the main.ts of the B gateway');

const median = (values: number[]) => {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

const bench = await startBench({ events: true });
const a = await startEnforcementGateway({
  mockUrl: bench.mock.url,
  natsUrl: bench.nats.url,
  ...(process.env.ENFORCEMENT_ENTRY ? { entry: process.env.ENFORCEMENT_ENTRY } : {}),
});
const b = await startEnforcementGateway({
  mockUrl: bench.mock.url,
  natsUrl: bench.nats.url,
  entry: entryB,
  nodeArgs: process.env.ENFORCEMENT_B_NODE_ARGS?.split(' ').filter(Boolean) ?? [],
});
type Slice = { row: Row; redis: number };
const rows: { a: Slice[]; b: Slice[] } = { a: [], b: [] };
const run = async (name: 'a' | 'b', gw: typeof a): Promise<Slice> => {
  const redis0 = cpuMicros(gw.redisPid);
  const row = await load(
    name,
    `${gw.url}/v1/chat/completions`,
    gw.headers,
    false,
    connections,
    sliceS,
    { proxy: gw.pid, nats: bench.nats.pid },
    rate,
  );
  return { row, redis: Math.round((cpuMicros(gw.redisPid) - redis0) / Math.max(1, row.total)) };
};
try {
  // Warm-up: JIT, agent pools, the plan and price caches.
  for (let w = 0; w < 3; w++) {
    await run('a', a);
    await run('b', b);
  }
  for (let i = 0; i < slices; i++) {
    const order = i % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const);
    for (const name of order) rows[name].push(await run(name, name === 'a' ? a : b));
  }
} finally {
  await b.stop();
  await a.stop();
  await bench.stop();
}
for (let i = 0; i < slices; i++) {
  const x = rows.a[i];
  const y = rows.b[i];
  console.log(
    `slice ${i}: A ${x?.row.cpuPerRequest} µs (redis ${x?.redis}, ${x?.row.writesPerRequest} writes, ${x?.row.rps} rps, errors ${x?.row.errors}), ` +
      `B ${y?.row.cpuPerRequest} µs (redis ${y?.redis}, ${y?.row.writesPerRequest} writes, ${y?.row.rps} rps, errors ${y?.row.errors})`,
  );
}
const cpu = (s: Slice[]) => median(s.map((r) => r.row.cpuPerRequest));
const redis = (s: Slice[]) => median(s.map((r) => r.redis));
const ratio = median(rows.a.map((x, i) => (rows.b[i]?.row.cpuPerRequest ?? 0) / x.row.cpuPerRequest));
const redisRatio = median(rows.a.map((x, i) => (rows.b[i]?.redis ?? 0) / Math.max(1, x.redis)));
console.log(
  `enforcement A/B at ${rate} req/s, ${connections} connections, ${slices} slices of ${sliceS} s: ` +
    `gateway CPU per request A ${cpu(rows.a)} µs, B ${cpu(rows.b)} µs, median B/A ${ratio.toFixed(3)}; ` +
    `redis-server A ${redis(rows.a)} µs, B ${redis(rows.b)} µs, median B/A ${redisRatio.toFixed(3)}; ` +
    `write syscalls per request A ${median(rows.a.map((r) => r.row.writesPerRequest))}, B ${median(rows.b.map((r) => r.row.writesPerRequest))}`,
);
