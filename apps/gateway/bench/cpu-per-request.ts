// Diagnosis, not a reported figure: CPU time per request of the gateway and of the bare proxy, in
// alternating rounds within one process tree (so both see the same machine load), optionally with a
// CPU profile of the gateway (`PROFILE_DIR`). Usage:
//   PROFILE_SCENARIO=json|stream PROFILE_CONNECTIONS=32 PROFILE_DURATION_S=6 PROFILE_ROUNDS=3 \
//   [PROFILE_DIR=/tmp/prof] [PROFILE_BARE_DIR=/tmp/bare] [BENCH_NO_EVENTS=1]
//   [BENCH_COMPARE_ENTRY=/copy/of/dist/main.js]  (a second, compiled gateway measured in the same rounds)
//   [BENCH_COMPARE_NODE_ARGS='--max-semi-space-size=64']  (node flags of the compared gateway)
//   [PROFILE_CONFIG=fallback|cache]  (the gateways' requests carry an `x-service-config`, as in
//     proxy-load.ts's config steps: a fallback config of two targets whose first answers, or the
//     same with `cache: simple`, warmed by one call so that every call is a hit; json only)
//   [PROFILE_TRANSLATED=anthropic BENCH_LIVE_MOCK=1]  (the same OpenAI body also sent translated, to the
//     mock answering as Anthropic, in the same rounds: the unified API's cost over pass-through,
//     docs/unified-api.md; the live mock, since the replayed upstream knows only OpenAI's answers)
//   [PROFILE_TRACED=1]  (the compared gateway is this one's compiled dist/main.js, or BENCH_COMPARE_ENTRY,
//     with tracing on: OTEL_EXPORTER_OTLP_ENDPOINT set to a local sink answering 200, docs/tracing.md)
//   tsx --conditions=@aigw/source bench/cpu-per-request.ts
import { readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { benchConfigHeaders, chatBody, load, type Row, startBench } from './harness.js';
import { summariseProfile } from './profile-summary.js';

const stream = process.env.PROFILE_SCENARIO === 'stream';
const connections = Number(process.env.PROFILE_CONNECTIONS ?? 32);
const duration = Number(process.env.PROFILE_DURATION_S ?? 6);
const rounds = Number(process.env.PROFILE_ROUNDS ?? 3);
const profileDir = process.env.PROFILE_DIR;
const translatedProvider = process.env.PROFILE_TRANSLATED;
if (translatedProvider !== undefined && process.env.BENCH_LIVE_MOCK !== '1') {
  throw new Error(
    'PROFILE_TRANSLATED needs BENCH_LIVE_MOCK=1 (the replayed upstream answers in OpenAI shape only)',
  );
}

const configMode = process.env.PROFILE_CONFIG;
if (configMode !== undefined && configMode !== 'fallback' && configMode !== 'cache') {
  throw new Error(`PROFILE_CONFIG must be fallback or cache, not ${configMode}`);
}
if (configMode !== undefined && stream) throw new Error('PROFILE_CONFIG runs the json scenario only');

// Tracing on: the compared gateway exports its spans over OTLP/HTTP to this sink (it reads and drops them).
const traced = process.env.PROFILE_TRACED === '1';
let exports = 0;
const sink = traced
  ? createServer((req, res) => {
      exports += 1;
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    })
  : undefined;
if (sink) await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
const sinkAddress = sink?.address();
const compareEntry =
  process.env.BENCH_COMPARE_ENTRY ??
  (traced ? new URL('../dist/main.js', import.meta.url).pathname : undefined);

const bench = await startBench({
  events: !process.env.BENCH_NO_EVENTS,
  compareEntry,
  // Node flags of the compared gateway (e.g. a V8 heap setting), space-separated.
  ...(process.env.BENCH_COMPARE_NODE_ARGS
    ? { compareNodeArgs: process.env.BENCH_COMPARE_NODE_ARGS.split(' ').filter(Boolean) }
    : {}),
  ...(sinkAddress && typeof sinkAddress === 'object'
    ? { compareEnv: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${sinkAddress.port}` } }
    : {}),
  ...(profileDir ? { gatewayNodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] } : {}),
  ...(process.env.PROFILE_BARE_DIR
    ? { bareNodeArgs: ['--cpu-prof', `--cpu-prof-dir=${process.env.PROFILE_BARE_DIR}`] }
    : {}),
});
const rows: Row[] = [];
const warmup = { bare: 0, gateway: 0 };
// The headers every gateway request carries: a provider and custom host, or a config of them.
const gatewayHeaders: Record<string, string> =
  configMode === undefined ? bench.gatewayHeaders : benchConfigHeaders(configMode, bench.mock.url);
try {
  const path = '/chat/completions';
  if (configMode === 'cache') {
    // One call stores the answer, in each gateway: every measured call is then a hit.
    for (const base of [bench.gateway.url, bench.compare?.url]) {
      if (base === undefined) continue;
      const res = await fetch(`${base}/v1${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...gatewayHeaders },
        body: chatBody(false),
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`priming the cache answered ${res.status}`);
    }
  }
  // Warm-up: JIT, agent pools, custom-host cache.
  warmup.bare = (await load('bare-proxy', `${bench.bare.url}${path}`, {}, stream, connections, 2)).total;
  warmup.gateway = (
    await load('gateway', `${bench.gateway.url}/v1${path}`, gatewayHeaders, stream, connections, 2)
  ).total;
  if (bench.compare) {
    await load('compared', `${bench.compare.url}/v1${path}`, gatewayHeaders, stream, connections, 2);
  }
  for (let round = 0; round < rounds; round++) {
    rows.push(
      await load('bare-proxy', `${bench.bare.url}${path}`, {}, stream, connections, duration, {
        proxy: bench.bare.pid,
        mock: bench.mock.pid,
      }),
    );
    rows.push(
      await load('gateway', `${bench.gateway.url}/v1${path}`, gatewayHeaders, stream, connections, duration, {
        proxy: bench.gateway.pid,
        nats: bench.nats.pid,
        mock: bench.mock.pid,
      }),
    );
    if (translatedProvider !== undefined) {
      const headers = {
        'x-service-provider': translatedProvider,
        'x-service-custom-host': `${bench.mock.url}/v1`,
      };
      if (round === 0)
        await load('translated', `${bench.gateway.url}/v1${path}`, headers, stream, connections, 2);
      rows.push(
        await load('translated', `${bench.gateway.url}/v1${path}`, headers, stream, connections, duration, {
          proxy: bench.gateway.pid,
          nats: bench.nats.pid,
          mock: bench.mock.pid,
        }),
      );
    }
    if (bench.compare) {
      rows.push(
        await load(
          'compared',
          `${bench.compare.url}/v1${path}`,
          gatewayHeaders,
          stream,
          connections,
          duration,
          {
            proxy: bench.compare.pid,
            nats: bench.nats.pid,
            mock: bench.mock.pid,
          },
        ),
      );
    }
  }
} finally {
  await bench.stop();
  sink?.close();
}
// Proof that the compared gateway traced: its batched OTLP exports reached the sink.
if (traced) console.log(`tracing on: the sink received ${exports} OTLP export requests`);
console.table(rows);
const of = (target: string) => rows.filter((r) => r.target === target);
const mean = (values: number[]) => Math.round(values.reduce((a, b) => a + b, 0) / values.length);
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return Math.round(
    sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2,
  );
};
// Medians over the rounds (what the journal reports), each target's per-round CPU per request.
for (const target of ['bare-proxy', 'gateway', 'compared', 'translated']) {
  const values = of(target).map((r) => r.cpuPerRequest);
  if (values.length > 0)
    console.log(`median ${target}: ${median(values)} µs/request (rounds: ${values.join(', ')})`);
}
const ratios = of('gateway').map((g, i) => (g.rps / (of('bare-proxy')[i]?.rps ?? 1)) * 100);
if (bench.compare) {
  const cmp = of('compared');
  console.log(
    `compared gateway (${compareEntry}${traced ? ', tracing on' : ''}): ${mean(cmp.map((r) => r.cpuPerRequest))} µs/request ` +
      `(nats ${mean(cmp.map((r) => r.natsCpuPerRequest))}), throughput ratio ` +
      cmp.map((g, i) => `${((g.rps / (of('bare-proxy')[i]?.rps ?? 1)) * 100).toFixed(1)}%`).join(' '),
  );
}
console.log(
  `${configMode ? `config ${configMode}` : stream ? 'stream' : 'json'} @${connections}: gateway ${mean(of('gateway').map((r) => r.cpuPerRequest))} µs/request ` +
    `(nats ${mean(of('gateway').map((r) => r.natsCpuPerRequest))}), bare ${mean(of('bare-proxy').map((r) => r.cpuPerRequest))} µs/request, ` +
    `throughput ratio ${ratios.map((r) => `${r.toFixed(1)}%`).join(' ')}`,
);
if (translatedProvider !== undefined) {
  const pass = mean(of('gateway').map((r) => r.cpuPerRequest));
  const translated = mean(of('translated').map((r) => r.cpuPerRequest));
  console.log(
    `translated to ${translatedProvider}: ${translated} µs/request against ${pass} pass-through: ` +
      `+${translated - pass} µs/request (${((translated / pass - 1) * 100).toFixed(0)}%), ` +
      `errors ${of('translated').reduce((n, r) => n + r.errors, 0)}`,
  );
}
// Requests each process served, warm-up included (what a profile of it covers).
console.log(
  `requests served: bare ${warmup.bare + of('bare-proxy').reduce((n, r) => n + r.total, 0)}, ` +
    `gateway ${warmup.gateway + of('gateway').reduce((n, r) => n + r.total, 0)}`,
);
if (profileDir) {
  // The main thread's profile is the largest (the module-loader worker writes one too).
  const newest = readdirSync(profileDir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => join(profileDir, f))
    .sort((a, b) => statSync(b).size - statSync(a).size)[0];
  if (newest) {
    console.log(`profile: ${newest}`);
    console.log(summariseProfile(newest, 40));
  }
}
