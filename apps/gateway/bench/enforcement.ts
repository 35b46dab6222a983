// The full-enforcement scenario on its own (issue 7): bare proxy, plain gateway and the enforcement
// gateway (key auth + requests policy + cost usage limit + events) loaded in alternating rounds of one
// process tree, non-streaming JSON at 32 connections; prints each round's requests/s, the enforcement /
// bare-proxy ratio per round and its median, and sequential p50/p99 added latency over direct.
// ENFORCEMENT_ROUNDS (default 3), BENCH_DURATION_S (default 6); ENFORCEMENT_PROFILE_DIR adds --cpu-prof
// to the enforcement gateway (summarise with profile-summary.ts); ENFORCEMENT_NODE_ARGS adds node flags
// to it (e.g. a --require preload for an experiment); ENFORCEMENT_B_NODE_ARGS starts a second one with
// those flags instead, loaded after the first in every round (A/B on one tree); ENFORCEMENT_B_ENTRY
// runs B from another entry instead (e.g. a copy of an earlier src/main.ts, to A/B two versions of
// the code); with a B, the end prints the median CPU per request of A and B and of their per-round
// ratio B/A (the two are loaded back to back, so they see the same background load).
// ENFORCEMENT_ENTRY runs A from another entry (a compiled dist/main.js runs without tsx, as in
// production); with ENFORCEMENT_PROFILE_DIR the plain gateway is profiled too (<dir>/plain), and
// ENFORCEMENT_SEQUENTIAL=0 leaves the sequential step out, so both profiles hold the loaded rounds
// only (compare them per request: the differential is what enforcement adds).
import { REQUESTS_STREAM } from '@aigw/proto';
import { startEnforcementGateway } from './enforcement-gateway.js';
import { cpuMicros, load, type Row, startBench } from './harness.js';
import { sequentialLatency } from './sequential-latency.js';

const DURATION = Number(process.env.BENCH_DURATION_S ?? 6);
const ROUNDS = Number(process.env.ENFORCEMENT_ROUNDS ?? 3);
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

const bench = await startBench({
  events: true,
  // With a profile dir, the plain gateway is profiled too (into <dir>/plain), for a differential view.
  ...(process.env.ENFORCEMENT_PROFILE_DIR
    ? { gatewayNodeArgs: ['--cpu-prof', '--cpu-prof-dir', `${process.env.ENFORCEMENT_PROFILE_DIR}/plain`] }
    : {}),
});
const profileDir = process.env.ENFORCEMENT_PROFILE_DIR;
const enforced = await startEnforcementGateway({
  mockUrl: bench.mock.url,
  natsUrl: bench.nats.url,
  nodeArgs: [
    ...(profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : []),
    ...(process.env.ENFORCEMENT_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
  ],
  ...(process.env.ENFORCEMENT_ENTRY ? { entry: process.env.ENFORCEMENT_ENTRY } : {}),
});
const bArgs = process.env.ENFORCEMENT_B_NODE_ARGS?.split(' ').filter(Boolean);
const bEntry = process.env.ENFORCEMENT_B_ENTRY;
const enforcedB =
  bArgs || bEntry
    ? await startEnforcementGateway({
        mockUrl: bench.mock.url,
        natsUrl: bench.nats.url,
        nodeArgs: bArgs ?? [],
        ...(bEntry ? { entry: bEntry } : {}),
      })
    : undefined;
const ab: { a: number; b: number; redisA: number; redisB: number }[] = [];
try {
  const mock = bench.mock.url;
  const bareUrl = `${bench.bare.url}/chat/completions`;
  const plainUrl = `${bench.gateway.url}/v1/chat/completions`;
  const enforcedUrl = `${enforced.url}/v1/chat/completions`;
  const rows: Row[] = [];
  const ratios: number[] = [];
  const mockPid = bench.mock.pid;
  // Unreported: the enforcement gateway has served one probe so far (JIT warm-up, as in proxy-load.ts).
  await load('warm-up', enforcedUrl, enforced.headers, false, 32, 5);
  if (enforcedB)
    await load('warm-up', `${enforcedB.url}/v1/chat/completions`, enforcedB.headers, false, 32, 5);
  for (let round = 0; round < ROUNDS; round++) {
    const bare = await load('bare-proxy', bareUrl, {}, false, 32, DURATION, {
      proxy: bench.bare.pid,
      mock: mockPid,
    });
    const plain = await load('gateway', plainUrl, bench.gatewayHeaders, false, 32, DURATION, {
      proxy: bench.gateway.pid,
      nats: bench.nats.pid,
      mock: mockPid,
    });
    const redis0 = cpuMicros(enforced.redisPid);
    const full = await load('gateway-enforcement', enforcedUrl, enforced.headers, false, 32, DURATION, {
      proxy: enforced.pid,
      nats: bench.nats.pid,
      mock: mockPid,
    });
    const redisCpu = Math.round((cpuMicros(enforced.redisPid) - redis0) / full.total);
    rows.push(bare, plain, full);
    if (enforcedB) {
      const redisB0 = cpuMicros(enforcedB.redisPid);
      const url = `${enforcedB.url}/v1/chat/completions`;
      const b = await load('enforcement-b', url, enforcedB.headers, false, 32, DURATION, {
        proxy: enforcedB.pid,
        nats: bench.nats.pid,
        mock: mockPid,
      });
      const redisB = Math.round((cpuMicros(enforcedB.redisPid) - redisB0) / b.total);
      rows.push(b);
      ab.push({ a: full.cpuPerRequest, b: b.cpuPerRequest, redisA: redisCpu, redisB });
      console.log(
        `round ${round + 1}: enforcement B ${b.rps} rps (${((b.rps / bare.rps) * 100).toFixed(1)}% of bare, ` +
          `${b.cpuPerRequest} µs CPU per request, redis-server ${redisB} µs, errors ${b.errors})`,
      );
    }
    ratios.push(full.rps / bare.rps);
    console.log(
      `round ${round + 1}: bare ${bare.rps} rps, gateway ${plain.rps} rps (${((plain.rps / bare.rps) * 100).toFixed(1)}%), ` +
        `enforcement ${full.rps} rps (${((full.rps / bare.rps) * 100).toFixed(1)}% of bare, errors ${full.errors}, redis-server ${redisCpu} µs CPU per request)`,
    );
  }
  console.table(rows);
  if (ab.length > 0) {
    console.log(
      `A/B CPU per request (µs), median of ${ab.length} rounds: A ${median(ab.map((r) => r.a))}, ` +
        `B ${median(ab.map((r) => r.b))}, B/A ${median(ab.map((r) => r.b / r.a)).toFixed(3)}; ` +
        `redis-server A ${median(ab.map((r) => r.redisA))}, B ${median(ab.map((r) => r.redisB))}`,
    );
  }
  // ENFORCEMENT_SEQUENTIAL=0 skips the sequential step (profiles then hold the loaded rounds only).
  const sequential = Number(process.env.ENFORCEMENT_SEQUENTIAL ?? 2000);
  const direct = await sequentialLatency(`${mock}/v1/chat/completions`, {}, sequential);
  const plain = await sequentialLatency(plainUrl, bench.gatewayHeaders, sequential);
  const full = await sequentialLatency(enforcedUrl, enforced.headers, sequential);
  if (sequential > 0)
    console.log(
      `sequential, 1 connection: gateway adds p50 ${(plain.p50 - direct.p50).toFixed(3)} ms, p99 ${(plain.p99 - direct.p99).toFixed(3)} ms; ` +
        `enforcement adds p50 ${(full.p50 - direct.p50).toFixed(3)} ms, p99 ${(full.p99 - direct.p99).toFixed(3)} ms over direct ` +
        `(${JSON.stringify({ direct, plain, full })})`,
    );
  console.log(
    `enforcement / bare proxy at 32 connections: per round ${ratios.map((r) => `${(r * 100).toFixed(1)}%`).join(', ')}; ` +
      `median ${(median(ratios) * 100).toFixed(1)}% (goal >= 60%)`,
  );
  console.log(
    `request events in JetStream: ${(await bench.jsm.streams.info(REQUESTS_STREAM)).state.messages}`,
  );
} finally {
  await enforcedB?.stop();
  await enforced.stop();
  await bench.stop();
}
