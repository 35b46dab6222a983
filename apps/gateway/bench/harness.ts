// Shared by the data-plane benches: the process tree (local NATS with the requests stream, the mock
// provider, the bare proxy, the gateway), the chat bodies and one autocannon step with the CPU of the
// proxy under test (per request and as a share of its core) and of the processes around it.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REQUESTS_STREAM, REQUESTS_SUBJECT } from '@aigw/proto';
import { freePort, startLocalNats } from '@aigw/testkit/services';
import { type JetStreamManager, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import autocannon from 'autocannon';
import { appNodeFlags } from '../../../packages/stack/src/apps.js';
import { pinning, pinProxy, pinSelf } from './pinning.js';
import { coreBusyPercent, coreTimes, cpuMicros, cpuMicrosOf, syscalls } from './proc.js';

export { cpuMicros, syscalls } from './proc.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const tsx = ['--conditions=@aigw/source', '--import', 'tsx'];
/** The gateway's own Node flags (its package.json's `aigw.nodeFlags`): every bench runs it as shipped. */
export const GATEWAY_NODE_FLAGS = appNodeFlags(root, 'gateway');

export function start(name: string, args: string[], env: Record<string, string> = {}): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${name} exited (${code})`)));
    child.stdout?.once('data', () => resolve(child));
  });
}

export async function waitHttp(url: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} never answered`);
}

const prompt = 'Summarise the incident report in three bullet points for the on-call channel. '.repeat(10);
export const chatBody = (stream: boolean) =>
  JSON.stringify({
    model: 'gpt-4o-mini',
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: prompt },
    ],
    temperature: 0.2,
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  });

/**
 * A step counts only if the proxy under test used at least this share of one core (BENCH_SATURATED_PCT,
 * default 90): below it something else (the load generator, the mock, a neighbour on the machine) set
 * the pace, and every ratio drifts toward 1.
 */
export const SATURATED_PCT = Number(process.env.BENCH_SATURATED_PCT ?? 90);

export interface Row {
  target: string;
  scenario: string;
  connections: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** Requests completed in the step. */
  total: number;
  /** Wall time of the step, in ms. */
  wallMs: number;
  /** CPU of the proxy under test (and of nats-server for the gateway) per request, in µs. */
  cpuPerRequest: number;
  /** CPU of the proxy under test over the step's wall time, in % of one core. */
  proxyCorePct: number;
  /** The proxy used at least SATURATED_PCT of its core: it was the bottleneck, the step counts. */
  saturated: boolean;
  /** Busy share of the proxy's cores and of the other cores (every process, from /proc/stat), in %. */
  proxyCoresBusyPct: number;
  otherCoresBusyPct: number;
  /** Share of all cores' time the hypervisor gave to someone else, in %. */
  stealPct: number;
  natsCpuPerRequest: number;
  /** Of the mock provider and of this process (the load generator), per request, in µs. */
  mockCpuPerRequest: number;
  loadCpuPerRequest: number;
  /** Of other named processes (e.g. redis, postgres, logger), per request, in µs. */
  othersCpuPerRequest: Record<string, number>;
  /** Write / read system calls of the proxy under test per request. */
  writesPerRequest: number;
  readsPerRequest: number;
}

const round2 = (value: number) => Math.round(value * 100) / 100;

export interface StepPids {
  proxy?: number | undefined;
  nats?: number | undefined;
  mock?: number | undefined;
  /** More processes whose CPU per request is reported, by name (read at the step's start). */
  others?: Record<string, () => readonly number[]>;
}

export async function load(
  target: string,
  url: string,
  headers: Record<string, string>,
  stream: boolean,
  connections: number,
  durationS: number,
  pids: StepPids = {},
  /** Requests per second for all connections together (default: as fast as they go). */
  rate?: number,
): Promise<Row> {
  const { proxyCpus, otherCpus } = pinning();
  const others = Object.entries(pids.others ?? {}).map(([name, list]) => {
    const members = list();
    return { name, members, cpu0: cpuMicrosOf(members) };
  });
  const cpu0 = cpuMicros(pids.proxy);
  const nats0 = cpuMicros(pids.nats);
  const mock0 = cpuMicros(pids.mock);
  const self0 = cpuMicros(process.pid);
  const io0 = syscalls(pids.proxy);
  const proxyCores0 = coreTimes(proxyCpus);
  const otherCores0 = coreTimes(otherCpus);
  const all0 = coreTimes([...proxyCpus, ...otherCpus]);
  const wall0 = process.hrtime.bigint();
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench', ...headers },
    body: chatBody(stream),
    connections,
    duration: durationS,
    ...(rate ? { overallRate: rate } : {}),
  });
  const wallUs = Number(process.hrtime.bigint() - wall0) / 1000;
  const proxyCpu = cpuMicros(pids.proxy) - cpu0;
  const total = Math.max(1, result.requests.total);
  const proxyCorePct = Math.round((proxyCpu / wallUs) * 100);
  return {
    target,
    scenario: stream ? 'stream' : 'json',
    connections,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
    total: result.requests.total,
    wallMs: Math.round(wallUs / 1000),
    cpuPerRequest: Math.round(proxyCpu / total),
    proxyCorePct,
    saturated: pids.proxy !== undefined && proxyCorePct >= SATURATED_PCT,
    proxyCoresBusyPct: coreBusyPercent(proxyCores0, coreTimes(proxyCpus)).busy,
    otherCoresBusyPct: coreBusyPercent(otherCores0, coreTimes(otherCpus)).busy,
    stealPct: coreBusyPercent(all0, coreTimes([...proxyCpus, ...otherCpus])).steal,
    natsCpuPerRequest: Math.round((cpuMicros(pids.nats) - nats0) / total),
    mockCpuPerRequest: Math.round((cpuMicros(pids.mock) - mock0) / total),
    loadCpuPerRequest: Math.round((cpuMicros(process.pid) - self0) / total),
    othersCpuPerRequest: Object.fromEntries(
      others.map((o) => [o.name, Math.round((cpuMicrosOf(o.members) - o.cpu0) / total)]),
    ),
    writesPerRequest: round2((syscalls(pids.proxy).writes - io0.writes) / total),
    readsPerRequest: round2((syscalls(pids.proxy).reads - io0.reads) / total),
  };
}

/** What the mock answers the bench's two bodies, for replay-upstream.mjs. */
async function captureMock(mockUrl: string): Promise<string> {
  const skip = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);
  const call = async (stream: boolean) => {
    const res = await fetch(`${mockUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
      body: chatBody(stream),
    });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`mock capture: ${res.status} ${body}`);
    const headers = Object.fromEntries([...res.headers].filter(([name]) => !skip.has(name)));
    return { headers, body };
  };
  const json = await call(false);
  const stream = await call(true);
  // One frame per SSE event, as the mock writes them.
  const frames = stream.body.split(/(?<=\n\n)/).filter((frame) => frame.length > 0);
  const dir = await mkdtemp(join(tmpdir(), 'aigw-bench-replay-'));
  const file = join(dir, 'captured.json');
  await writeFile(file, JSON.stringify({ json, stream: { headers: stream.headers, frames } }));
  return file;
}

export interface Bench {
  /** The upstream of every target: the mock's answers replayed (BENCH_LIVE_MOCK=1: the mock itself). */
  readonly mock: { url: string; pid: number | undefined };
  readonly bare: { url: string; pid: number | undefined };
  readonly gateway: { url: string; pid: number | undefined; process: ChildProcess };
  readonly nats: { url: string; pid: number | undefined };
  /** A second gateway run from a compiled entry point, when asked for (A/B of two builds). */
  readonly compare: { url: string; pid: number | undefined } | undefined;
  /** Headers that route a gateway request to the mock. */
  readonly gatewayHeaders: Record<string, string>;
  readonly jsm: JetStreamManager;
  stop(): Promise<void>;
}

/**
 * Starts the whole tree. `gatewayNodeArgs` / `bareNodeArgs` go before the entry point (e.g. `--cpu-prof`);
 * `events: false` runs the gateway without NATS (diagnosis only).
 */
export async function startBench(options: {
  events: boolean;
  gatewayNodeArgs?: string[];
  bareNodeArgs?: string[];
  /** A compiled gateway main.js (e.g. a copy of an earlier dist/) to run beside the sources. */
  compareEntry?: string | undefined;
  compareNodeArgs?: string[];
  /** Settings of the compared gateway on top of the gateway's (e.g. tracing on). */
  compareEnv?: Record<string, string>;
  /**
   * The gateway's entry point: a compiled main.js runs without tsx (as `pnpm start` runs it); default
   * BENCH_GATEWAY_ENTRY, else the sources through tsx.
   */
  gatewayEntry?: string | undefined;
}): Promise<Bench> {
  // Before anything starts: every process started from here on inherits the "other" cores.
  pinSelf();
  const nats = await startLocalNats();
  const nc = await connect({ servers: nats.url });
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({
    name: REQUESTS_STREAM,
    subjects: [REQUESTS_SUBJECT],
    duplicate_window: 120_000_000_000,
  });
  const [mockPort, barePort, gatewayPort] = [await freePort(), await freePort(), await freePort()];
  const children: ChildProcess[] = [];
  let captured: string | undefined;
  const stop = async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null) return resolve();
            child.removeAllListeners('exit');
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
    await nc.close();
    await nats.stop();
    if (captured) await rm(dirname(captured), { recursive: true, force: true });
  };
  try {
    // The compiled mock when there is one: it shares the load generator's core, so it should cost little.
    const mockDist = `${root}packages/mock-provider/dist/cli.js`;
    children.push(
      await start('mock', [
        ...(existsSync(mockDist) ? [mockDist] : [...tsx, `${root}packages/mock-provider/src/cli.ts`]),
        '--port',
        String(mockPort),
        '--max-recorded',
        '0',
        '--chunks',
        '20',
      ]),
    );
    const liveMock = `http://127.0.0.1:${mockPort}`;
    let mock = liveMock;
    let upstream = children[0];
    if (process.env.BENCH_LIVE_MOCK !== '1') {
      const port = await freePort();
      captured = await captureMock(liveMock);
      upstream = await start('replay upstream', [
        `${root}apps/gateway/bench/replay-upstream.mjs`,
        String(port),
        captured,
      ]);
      children.push(upstream);
      mock = `http://127.0.0.1:${port}`;
    }
    const bareIndex = children.length;
    children.push(
      await start('bare proxy', [
        ...(options.bareNodeArgs ?? []),
        process.env.BENCH_BARE_SCRIPT ?? `${root}apps/gateway/bench/bare-proxy.mjs`,
        String(barePort),
        `${mock}/v1`,
      ]),
    );
    const gatewayEnv = (port: number) => ({
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ...(options.events ? { NATS_URL: nats.url } : {}),
      CUSTOM_HOST_ALLOWLIST: '127.0.0.1',
    });
    // A compiled main.js instead of the sources (as in production; profiles then have real lines).
    const entry = options.gatewayEntry ?? process.env.BENCH_GATEWAY_ENTRY;
    const gateway = await start(
      'gateway',
      entry
        ? [...GATEWAY_NODE_FLAGS, ...(options.gatewayNodeArgs ?? []), entry]
        : [
            ...tsx,
            ...GATEWAY_NODE_FLAGS,
            ...(options.gatewayNodeArgs ?? []),
            `${root}apps/gateway/src/main.ts`,
          ],
      gatewayEnv(gatewayPort),
    );
    children.push(gateway);
    await waitHttp(`http://127.0.0.1:${gatewayPort}/readyz`);
    // The proxies under test run alone on their core (one at a time is loaded; the others idle there).
    pinProxy(children[bareIndex]?.pid, 'the bare proxy');
    pinProxy(gateway.pid, 'the gateway');
    let compare: Bench['compare'];
    if (options.compareEntry) {
      const port = await freePort();
      const other = await start(
        'compared gateway',
        [...GATEWAY_NODE_FLAGS, ...(options.compareNodeArgs ?? []), options.compareEntry],
        { ...gatewayEnv(port), ...options.compareEnv },
      );
      children.push(other);
      await waitHttp(`http://127.0.0.1:${port}/readyz`);
      pinProxy(other.pid, 'the compared gateway');
      compare = { url: `http://127.0.0.1:${port}`, pid: other.pid };
    }
    return {
      compare,
      mock: { url: mock, pid: upstream?.pid },
      bare: { url: `http://127.0.0.1:${barePort}`, pid: children[bareIndex]?.pid },
      gateway: { url: `http://127.0.0.1:${gatewayPort}`, pid: gateway.pid, process: gateway },
      nats: { url: nats.url, pid: nats.pid },
      gatewayHeaders: { 'x-service-provider': 'openai', 'x-service-custom-host': `${mock}/v1` },
      jsm,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * An `x-service-config` of two OpenAI targets on the bench's upstream whose first answers
 * (proxy-load.ts's config steps), with `cache: simple` for `cache` (prime it with one call).
 */
export function benchConfigHeaders(mode: 'fallback' | 'cache', upstream: string): Record<string, string> {
  return {
    'x-service-config': JSON.stringify({
      strategy: { mode: 'fallback' },
      targets: [
        { provider: 'openai', api_key: 'sk-bench', custom_host: `${upstream}/v1` },
        { provider: 'openai', api_key: 'sk-bench-2', custom_host: `${upstream}/v1` },
      ],
      ...(mode === 'cache' ? { cache: { mode: 'simple', max_age: 3600 } } : {}),
    }),
  };
}
