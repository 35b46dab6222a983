// `pnpm bench` for the data plane: how much CPU the gateway spends per request against a bare
// node:http proxy, measured with the proxy under test as the bottleneck. The proxy under test runs
// alone on one core, everything else (this load generator, the mock provider, NATS, and for full
// enforcement the whole `pnpm start` stack: Postgres, Redis, control plane, logger) on the other.
// Targets, non-streaming and streaming chat completions at BENCH_CONNECTIONS:
//   bare proxy        bench/bare-proxy.mjs, the floor any node proxy pays;
//   pass-through      the compiled gateway, provider and custom host from headers, events to NATS;
//   full enforcement  the stack's gateway with a service key, a requests rate limit, a cost budget
//                     and events (consumed by the logger into Postgres); non-streaming only.
// Each step prints requests/s and its ratio to the bare proxy's step of the same round, the proxy's
// CPU µs per request and its share of its core, and VALID (>= BENCH_SATURATED_PCT of its core) or
// NOT SATURATED (excluded from the verdicts). The verdicts take the median over the rounds of the
// ratio of CPU per request to the bare proxy's step of the same round (both VALID): full enforcement
// <= 1.5x the bare proxy, pass-through <= 1.1x (printed, never failing). Then sequential 1-connection latency probes and the config scenarios. docs/performance.md.
import { cpus, loadavg, release, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { REQUESTS_STREAM } from '@aigw/proto';
import { chatBody, load, type Row, SATURATED_PCT, type StepPids, startBench } from './harness.js';
import { describePinning, pinning } from './pinning.js';
import { settle as settleProcesses } from './proc.js';
import { sequentialLatency } from './sequential-latency.js';
import { missingBuilds, startStackEnforcement } from './stack-enforcement.js';

const STEP_S = Number(process.env.BENCH_STEP_S ?? 4);
/** Rounds of every target, one step each, back to back (the order rotates from round to round). */
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 8));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const WARM_UP_S = Number(process.env.BENCH_WARM_UP_S ?? 8);
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 1000);
/**
 * The logger shares the other core, and its cost per request (writing each event to Postgres) would
 * make that core, not the gateway, the bottleneck; the gateway's work is the same whether it runs or
 * not (its events wait in JetStream). `rounds` (default): stopped (SIGSTOP) from the json warm-ups to
 * the end of the json rounds, then resumed and waited for; `step`: stopped during each
 * full-enforcement step only (until the seventh session), so that the logger catches up before the
 * next step, which leaves the proxy's core idle longest before full-enforcement steps; `0`: left
 * running.
 */
const PAUSE_LOGGER_MODE = process.env.BENCH_PAUSE_LOGGER ?? 'rounds';
if (!['rounds', 'step', '0'].includes(PAUSE_LOGGER_MODE)) {
  throw new Error(`BENCH_PAUSE_LOGGER must be rounds, step or 0, not ${PAUSE_LOGGER_MODE}`);
}
const PAUSE_LOGGER_PER_STEP = PAUSE_LOGGER_MODE === 'step';
const PAUSE_LOGGER_FOR_ROUNDS = PAUSE_LOGGER_MODE === 'rounds';
/** Issue 16: CPU per request against the bare proxy's. */
const TARGETS = { 'full enforcement': 1.5, 'pass-through': 1.1 } as const;
/** Rounds in which both the target's and the bare proxy's steps were VALID, for a verdict. */
const MIN_PAIRED = 3;

const missing = missingBuilds();
if (missing.length > 0) throw new Error(`${missing.join(', ')} missing: run \`pnpm build\` first`);
const distGateway = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const startedAt = new Date();
const load0 = loadavg();

// startBench pins this process to the other cores before it starts anything.
const bench = await startBench({
  events: !process.env.BENCH_NO_EVENTS,
  gatewayEntry: process.env.BENCH_GATEWAY_ENTRY ?? distGateway,
});
const stack = await startStackEnforcement(bench.mock.url).catch(async (err) => {
  await bench.stop();
  throw err;
});

interface Target {
  readonly name: 'bare proxy' | 'pass-through' | 'full enforcement';
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly pids: StepPids;
  /** Around each of its steps (the logger's pause). */
  readonly before?: () => void;
  readonly after?: () => void;
}
// Every step reports the CPU of the processes around the proxy too: when the proxy is not
// saturated, they show who was (the load generator, the mock, the logger catching up...).
const around = { nats: bench.nats.pid, mock: bench.mock.pid, others: stack.others };
const bare: Target = {
  name: 'bare proxy',
  url: `${bench.bare.url}/chat/completions`,
  headers: {},
  pids: { proxy: bench.bare.pid, ...around },
};
const passThrough: Target = {
  name: 'pass-through',
  url: `${bench.gateway.url}/v1/chat/completions`,
  headers: bench.gatewayHeaders,
  pids: { proxy: bench.gateway.pid, ...around },
};
const full: Target = {
  name: 'full enforcement',
  url: `${stack.url}/v1/chat/completions`,
  headers: stack.headers,
  pids: { proxy: stack.pid, ...around },
  ...(PAUSE_LOGGER_PER_STEP ? { before: () => stack.pauseLogger(), after: () => stack.resumeLogger() } : {}),
};
const aroundPids = () => [
  ...[bench.nats.pid, bench.mock.pid].filter((pid) => pid !== undefined),
  ...Object.values(stack.others).flatMap((list) => list()),
];

/** Before a step: until the processes around the proxy are idle (proc.ts settle), at most 20 s. */
async function settle(maxMs = 20_000): Promise<void> {
  if (await settleProcesses(aroundPids, maxMs)) return;
  console.log(
    `(the processes around the proxy were still busy after ${maxMs / 1000} s: the next step starts anyway)`,
  );
}

/** One load of a target, the logger paused around it when the target asks. */
async function loadTarget(
  target: Target,
  name: string,
  headers: Record<string, string>,
  stream: boolean,
  seconds: number,
) {
  await settle();
  target.before?.();
  try {
    return await load(name, target.url, headers, stream, CONNECTIONS, seconds, target.pids);
  } finally {
    target.after?.();
  }
}

/** Limit decisions the stack's gateway took without Redis so far (its /metrics counter). */
async function degradedDecisions(): Promise<number> {
  const name = 'gateway_limits_degraded_decisions_total';
  const text = await (await fetch(`${stack.url}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/**
 * `degraded`: limit decisions taken without Redis during a full-enforcement step (Redis too slow to
 * answer on a starved core): that step did not pay for full enforcement and does not count.
 */
type Step = Row & {
  round: number;
  degraded: number;
  /** Saturated, no failed request, no degraded decision: the step counts in the verdicts. */
  valid: boolean;
  status: 'VALID' | 'NOT SATURATED' | 'DEGRADED' | 'ERRORS';
};
const steps: Step[] = [];
/** One reported step; `variant` loads the target with other headers under another name. */
const step = async (
  target: Target,
  stream: boolean,
  round: number,
  variant?: { name: string; headers: Record<string, string> },
) => {
  const enforced = target === full;
  const degraded0 = enforced ? await degradedDecisions() : 0;
  const loaded = await loadTarget(
    target,
    variant?.name ?? target.name,
    variant?.headers ?? target.headers,
    stream,
    STEP_S,
  );
  const degraded = enforced ? (await degradedDecisions()) - degraded0 : 0;
  const status =
    loaded.errors > 0 ? 'ERRORS' : degraded > 0 ? 'DEGRADED' : loaded.saturated ? 'VALID' : 'NOT SATURATED';
  const row: Step = { ...loaded, round, degraded, valid: status === 'VALID', status };
  steps.push(row);
  return row;
};

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};
const x = (ratio: number) => (Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : '-');

/** The bare proxy's step of the same round and scenario: the per-step ratios' reference. */
const bareOf = (row: Step) =>
  steps.find((r) => r.target === 'bare proxy' && r.scenario === row.scenario && r.round === row.round);

/** A round's steps, once all ran: each beside the bare proxy's step of that round. */
function printRound(scenario: string, round: number): void {
  for (const row of steps.filter((r) => r.scenario === scenario && r.round === round)) printStep(row);
}

/** Why a step did not saturate its proxy, from the cores' busy shares. */
function notSaturatedBecause(row: Step): string {
  const reasons = [
    row.proxyCoresBusyPct >= 95 ? 'proxy core shared' : '',
    row.otherCoresBusyPct >= 95 ? 'other core full' : '',
  ].filter(Boolean);
  return reasons.length > 0 ? ` (${reasons.join(', ')})` : '';
}

function printStep(row: Step): void {
  const ref = row.target === 'bare proxy' ? undefined : bareOf(row);
  const rps = `${row.rps} req/s${ref ? ` (${x(row.rps / ref.rps)})` : ''}`;
  const cpu = `${row.cpuPerRequest} µs/req${ref ? ` (${x(row.cpuPerRequest / ref.cpuPerRequest)})` : ''}`;
  const aroundCpu = Object.entries({
    load: row.loadCpuPerRequest,
    mock: row.mockCpuPerRequest,
    nats: row.natsCpuPerRequest,
    ...row.othersCpuPerRequest,
  })
    .filter(([, us]) => us > 0)
    .map(([name, us]) => `${name} ${us}`)
    .join(', ');
  console.log(
    `${row.scenario.padEnd(6)} r${row.round + 1}  ${row.target.padEnd(17)} ${rps.padEnd(22)} ${cpu.padEnd(22)} ` +
      `proxy ${String(row.proxyCorePct).padStart(3)}% of a core  ${(row.status === 'NOT SATURATED' ? `${row.status}${notSaturatedBecause(row)}` : row.status).padEnd(13)} ` +
      `| cores busy: proxy ${row.proxyCoresBusyPct}%, other ${row.otherCoresBusyPct}%` +
      `${row.stealPct > 0 ? `, steal ${row.stealPct}%` : ''}` +
      `${row.errors > 0 ? ` | ERRORS ${row.errors}` : ''}` +
      `${row.degraded > 0 ? ` | ${row.degraded} limit decisions without Redis` : ''} | around, µs/req: ${aroundCpu}`,
  );
}

const pin = pinning();
console.log(
  `aigw data-plane bench, ${startedAt.toISOString()}: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ` +
    `${Math.round(totalmem() / 2 ** 30)} GB, Linux ${release()}, Node ${process.versions.node}, ` +
    `load average ${load0.map((l) => l.toFixed(2)).join(' ')}`,
);
console.log(describePinning());
console.log(
  `upstream: ${process.env.BENCH_LIVE_MOCK === '1' ? 'the mock provider' : "the mock provider's answers replayed (replay-upstream.mjs)"}; ` +
    `logger ${
      PAUSE_LOGGER_FOR_ROUNDS
        ? 'paused through the json warm-ups and rounds (events wait in JetStream)'
        : PAUSE_LOGGER_PER_STEP
          ? 'paused during full-enforcement steps (events wait in JetStream)'
          : 'running during every step'
    }`,
);
console.log(
  `${CONNECTIONS} connections, ${STEP_S} s steps, ${ROUNDS} rounds; VALID = the proxy under test used >= ${SATURATED_PCT}% of a core`,
);

let published = 0;
let evidence: Awaited<ReturnType<typeof stack.evidence>> | undefined;
let latency = '';
try {
  // Unreported warm-up of every target (JIT, agent pools, the key and plan caches, Redis scripts).
  // Each scenario's warm-ups come right before its rounds, so that no target's first step follows a
  // longer idle gap than its later ones: with the stream warm-ups between the json warm-ups and the
  // json rounds, the first full-enforcement step cost 1.8-1.9x the bare proxy in three runs of
  // 2026-11-27, its later steps 1.3-1.7x.
  if (PAUSE_LOGGER_FOR_ROUNDS) stack.pauseLogger();
  try {
    for (const target of [bare, passThrough, full])
      await loadTarget(target, 'warm-up', target.headers, false, WARM_UP_S);

    // Rounds: every target once, back to back, so that a round's steps see the same background load;
    // the order rotates so that no target always follows the same one.
    const json = [bare, passThrough, full];
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < json.length; i++)
        await step(json[(i + round) % json.length] as Target, false, round);
      printRound('json', round);
    }
  } finally {
    if (PAUSE_LOGGER_FOR_ROUNDS) stack.resumeLogger();
  }
  // The logger writes what waited in JetStream before anything else is loaded.
  if (PAUSE_LOGGER_FOR_ROUNDS) await settle(300_000);
  const stream = [bare, passThrough];
  for (const target of stream) await loadTarget(target, 'warm-up', target.headers, true, WARM_UP_S);
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < stream.length; i++)
      await step(stream[(i + round) % stream.length] as Target, true, round);
    printRound('stream', round);
  }

  // Config scenarios of the pass-through gateway (JSON): a fallback config whose first target
  // answers, and a cache that answers every call (the same body every time). Beside a bare step.
  const mock = bench.mock.url;
  const configHeaders = (extra: Record<string, unknown>) => ({
    'x-service-config': JSON.stringify({
      strategy: { mode: 'fallback' },
      targets: [
        { provider: 'openai', api_key: 'sk-bench', custom_host: `${mock}/v1` },
        { provider: 'openai', api_key: 'sk-bench-2', custom_host: `${mock}/v1` },
      ],
      ...extra,
    }),
  });
  const cacheHeaders = configHeaders({ cache: { mode: 'simple', max_age: 3600 } });
  await fetch(passThrough.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...cacheHeaders },
    body: chatBody(false),
  }).then((res) => res.arrayBuffer());
  await step(bare, false, ROUNDS);
  await step(passThrough, false, ROUNDS, { name: 'config fallback', headers: configHeaders({}) });
  await step(passThrough, false, ROUNDS, { name: 'config cache hit', headers: cacheHeaders });
  printRound('json', ROUNDS);

  // Latency, one connection, timed with hrtime (autocannon's whole milliseconds are too coarse).
  // Each probe as each load step: after the processes around the proxy are idle, and with the
  // logger paused for full enforcement (its catch-up would otherwise share the other core with
  // Redis and NATS, which that probe waits on).
  if (SEQUENTIAL > 0) {
    const probe = async (
      url: string,
      headers: Record<string, string>,
      options: { readonly ttfb?: boolean; readonly pauseLogger?: boolean } = {},
    ) => {
      await settle();
      if (options.pauseLogger) stack.pauseLogger();
      try {
        return await sequentialLatency(url, headers, SEQUENTIAL, options.ttfb ?? false);
      } finally {
        if (options.pauseLogger) stack.resumeLogger();
      }
    };
    const direct = await probe(`${mock}/v1/chat/completions`, {});
    const seq = {
      'bare proxy': await probe(bare.url, {}),
      'pass-through': await probe(passThrough.url, passThrough.headers),
      'full enforcement': await probe(full.url, full.headers, { pauseLogger: PAUSE_LOGGER_MODE !== '0' }),
    };
    const ttfbDirect = await probe(`${mock}/v1/chat/completions`, {}, { ttfb: true });
    const ttfb = await probe(passThrough.url, passThrough.headers, { ttfb: true });
    const ms = (v: number) => `${v >= 0 ? '+' : ''}${v.toFixed(3)} ms`;
    latency = [
      `latency added over calling the mock directly (1 connection, ${SEQUENTIAL} sequential requests; direct p50 ${direct.p50.toFixed(3)} ms, p99 ${direct.p99.toFixed(3)} ms):`,
      ...Object.entries(seq).map(
        ([name, l]) => `  ${name.padEnd(17)} p50 ${ms(l.p50 - direct.p50)}, p99 ${ms(l.p99 - direct.p99)}`,
      ),
      `  streaming first byte, pass-through: p50 ${ms(ttfb.p50 - ttfbDirect.p50)}, p99 ${ms(ttfb.p99 - ttfbDirect.p99)}`,
    ].join('\n');
  }
  published = (await bench.jsm.streams.info(REQUESTS_STREAM)).state.messages;
  await settle(); // the logger's last events written
  evidence = await stack.evidence();
} finally {
  await stack.stop();
  await bench.stop();
}

// Summary: medians over the VALID steps only.
console.log('');
console.log(describePinning());
const valid = (target: string, scenario: string) =>
  steps.filter((r) => r.target === target && r.scenario === scenario && r.round < ROUNDS && r.valid);
const all = (target: string, scenario: string) =>
  steps.filter((r) => r.target === target && r.scenario === scenario && r.round < ROUNDS);
for (const scenario of ['json', 'stream']) {
  const ref = valid('bare proxy', scenario);
  for (const name of ['bare proxy', 'pass-through', 'full enforcement'] as const) {
    const rows = valid(name, scenario);
    if (all(name, scenario).length === 0) continue;
    const cpu = Math.round(median(rows.map((r) => r.cpuPerRequest)));
    const rps = Math.round(median(rows.map((r) => r.rps)));
    const shares = all(name, scenario).map((r) => r.proxyCorePct);
    const counted =
      `${rows.length} of ${shares.length} steps VALID, ` +
      `proxy at ${Math.min(...shares)}-${Math.max(...shares)}% of its core`;
    if (name === 'bare proxy') {
      console.log(
        `${scenario.padEnd(6)} ${name.padEnd(17)} ${rows.length ? `${cpu} µs/req, ${rps} req/s` : 'no VALID step'} (${counted})`,
      );
      continue;
    }
    const refCpu = median(ref.map((r) => r.cpuPerRequest));
    const refRps = median(ref.map((r) => r.rps));
    // The verdict's figure: each round's ratio to the bare proxy's step of the same round (both
    // VALID), then their median. The machine's speed drifts from minute to minute (the unchanged bare
    // proxy moved by half within one run), and adjacent steps share the drift; the ratio of the two
    // medians, printed beside it, mixes steps minutes apart.
    const paired = rows.flatMap((r) => {
      const bare = bareOf(r);
      return bare?.valid ? [r.cpuPerRequest / bare.cpuPerRequest] : [];
    });
    const ratio = median(paired);
    const target = TARGETS[name];
    const verdict =
      paired.length < MIN_PAIRED
        ? `NO VERDICT (${paired.length} round${paired.length === 1 ? '' : 's'} with both steps VALID, ${MIN_PAIRED} needed)`
        : `${ratio <= target ? 'PASS' : 'MISS'}${pin.pinned ? '' : ' (UNPINNED)'}`;
    console.log(
      `${scenario.padEnd(6)} ${name.padEnd(17)} ${rows.length ? `${cpu} µs/req, ${rps} req/s` : 'no VALID step'} (${counted}); ` +
        `CPU per request ${x(ratio)} the bare proxy's, median of ${paired.length} paired rounds ` +
        `(${paired.map((v) => v.toFixed(2)).join(', ')}; ratio of the medians ${x(cpu / refCpu)}) ` +
        `(target <= ${target}x): ${verdict}; throughput ${x(rps / refRps)}`,
    );
  }
}
for (const name of ['config fallback', 'config cache hit']) {
  const row = steps.find((r) => r.target === name);
  const ref = steps.find((r) => r.target === 'bare proxy' && r.round === ROUNDS);
  if (row && ref)
    console.log(
      `json   ${name.padEnd(17)} ${row.cpuPerRequest} µs/req (${x(row.cpuPerRequest / ref.cpuPerRequest)} the bare proxy's), ` +
        `${row.rps} req/s (${x(row.rps / ref.rps)}), ${row.status}`,
    );
}
if (latency) console.log(latency);
console.log(
  `request events: ${published} published by the pass-through gateway; full enforcement: ` +
    `${JSON.stringify(evidence?.loggedRequests)} requests written by the logger, budget counted ${JSON.stringify(evidence?.budgetUsd)} USD`,
);
const load1 = loadavg();
console.log(
  `load average at the end ${load1.map((l) => l.toFixed(2)).join(' ')} (start ${load0.map((l) => l.toFixed(2)).join(' ')}); ` +
    `${Math.round((Date.now() - startedAt.getTime()) / 1000)} s`,
);
