// Shared by the data-plane benches: the process tree (local NATS with the requests stream, the mock
// provider, the bare proxy, the gateway), the chat bodies, CPU time from /proc and one autocannon step.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { REQUESTS_STREAM, REQUESTS_SUBJECT } from '@aigw/proto';
import { freePort, startLocalNats } from '@aigw/testkit/services';
import { type JetStreamManager, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import autocannon from 'autocannon';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const tsx = ['--conditions=@aigw/source', '--import', 'tsx'];

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

/** CPU time (user + system) of a process so far, in microseconds. */
export function cpuMicros(pid: number | undefined): number {
  if (pid === undefined) return 0;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** Write and read system calls of a process so far (/proc/<pid>/io), 0 when unreadable. */
export function syscalls(pid: number | undefined): { writes: number; reads: number } {
  if (pid === undefined) return { writes: 0, reads: 0 };
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    const field = (name: string) => Number(io.match(new RegExp(`^${name}: (\\d+)`, 'm'))?.[1] ?? 0);
    return { writes: field('syscw'), reads: field('syscr') };
  } catch {
    return { writes: 0, reads: 0 };
  }
}

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
  /** CPU of the proxy under test (and of nats-server for the gateway) per request, in µs. */
  cpuPerRequest: number;
  natsCpuPerRequest: number;
  /** Of the mock provider and of this process (the load generator), per request, in µs. */
  mockCpuPerRequest: number;
  loadCpuPerRequest: number;
  /** Write / read system calls of the proxy under test per request. */
  writesPerRequest: number;
  readsPerRequest: number;
}

const round2 = (value: number) => Math.round(value * 100) / 100;

export async function load(
  target: string,
  url: string,
  headers: Record<string, string>,
  stream: boolean,
  connections: number,
  durationS: number,
  pids: { proxy?: number | undefined; nats?: number | undefined; mock?: number | undefined } = {},
  /** Requests per second for all connections together (default: as fast as they go). */
  rate?: number,
): Promise<Row> {
  const cpu0 = cpuMicros(pids.proxy);
  const nats0 = cpuMicros(pids.nats);
  const mock0 = cpuMicros(pids.mock);
  const self0 = cpuMicros(process.pid);
  const io0 = syscalls(pids.proxy);
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench', ...headers },
    body: chatBody(stream),
    connections,
    duration: durationS,
    ...(rate ? { overallRate: rate } : {}),
  });
  return {
    target,
    scenario: stream ? 'stream' : 'json',
    connections,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
    total: result.requests.total,
    cpuPerRequest: Math.round((cpuMicros(pids.proxy) - cpu0) / result.requests.total),
    natsCpuPerRequest: Math.round((cpuMicros(pids.nats) - nats0) / result.requests.total),
    mockCpuPerRequest: Math.round((cpuMicros(pids.mock) - mock0) / result.requests.total),
    loadCpuPerRequest: Math.round((cpuMicros(process.pid) - self0) / result.requests.total),
    writesPerRequest: round2((syscalls(pids.proxy).writes - io0.writes) / result.requests.total),
    readsPerRequest: round2((syscalls(pids.proxy).reads - io0.reads) / result.requests.total),
  };
}

export interface Bench {
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
}): Promise<Bench> {
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
  };
  try {
    children.push(
      await start('mock', [
        ...tsx,
        `${root}packages/mock-provider/src/cli.ts`,
        '--port',
        String(mockPort),
        '--max-recorded',
        '0',
        '--chunks',
        '20',
      ]),
    );
    const mock = `http://127.0.0.1:${mockPort}`;
    children.push(
      await start('bare proxy', [
        ...(options.bareNodeArgs ?? []),
        `${root}apps/gateway/bench/bare-proxy.mjs`,
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
    // BENCH_GATEWAY_ENTRY: a compiled main.js instead of the sources (profiles then have real lines).
    const entry = process.env.BENCH_GATEWAY_ENTRY;
    const gateway = await start(
      'gateway',
      entry
        ? [...(options.gatewayNodeArgs ?? []), entry]
        : [...tsx, ...(options.gatewayNodeArgs ?? []), `${root}apps/gateway/src/main.ts`],
      gatewayEnv(gatewayPort),
    );
    children.push(gateway);
    await waitHttp(`http://127.0.0.1:${gatewayPort}/readyz`);
    let compare: Bench['compare'];
    if (options.compareEntry) {
      const port = await freePort();
      const other = await start(
        'compared gateway',
        [...(options.compareNodeArgs ?? []), options.compareEntry],
        gatewayEnv(port),
      );
      children.push(other);
      await waitHttp(`http://127.0.0.1:${port}/readyz`);
      compare = { url: `http://127.0.0.1:${port}`, pid: other.pid };
    }
    return {
      compare,
      mock: { url: mock, pid: children[0]?.pid },
      bare: { url: `http://127.0.0.1:${barePort}`, pid: children[1]?.pid },
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
