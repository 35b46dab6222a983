// `pnpm bench` for the data plane: the mock provider, a bare node:http proxy and the gateway (with
// request events going to a real NATS JetStream), each in its own process, driven by autocannon for
// non-streaming (~1 KB body) and streaming chat completions. Prints throughput and latency, the
// gateway/bare-proxy ratio and the gateway's added latency over a direct call.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { REQUESTS_STREAM, REQUESTS_SUBJECT } from '@aigw/proto';
import { freePort, startLocalNats } from '@aigw/testkit/services';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import autocannon from 'autocannon';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const DURATION = Number(process.env.BENCH_DURATION_S ?? 8);
const tsx = ['--conditions=@aigw/source', '--import', 'tsx'];

function start(name: string, args: string[], env: Record<string, string> = {}): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${name} exited (${code})`)));
    child.stdout?.once('data', () => resolve(child));
  });
}

async function waitHttp(url: string): Promise<void> {
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
const chatBody = (stream: boolean) =>
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
function cpuMicros(pid: number | undefined): number {
  if (pid === undefined) return 0;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

interface Row {
  target: string;
  scenario: string;
  connections: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU of the proxy under test (and of nats-server for the gateway) per request, in µs. */
  cpuPerRequest: number;
  natsCpuPerRequest: number;
}

async function load(
  target: string,
  url: string,
  headers: Record<string, string>,
  stream: boolean,
  connections: number,
  pids: { proxy?: number | undefined; nats?: number | undefined } = {},
): Promise<Row> {
  const cpu0 = cpuMicros(pids.proxy);
  const nats0 = cpuMicros(pids.nats);
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench', ...headers },
    body: chatBody(stream),
    connections,
    duration: DURATION,
  });
  return {
    target,
    scenario: stream ? 'stream' : 'json',
    connections,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
    cpuPerRequest: Math.round((cpuMicros(pids.proxy) - cpu0) / result.requests.total),
    natsCpuPerRequest: Math.round((cpuMicros(pids.nats) - nats0) / result.requests.total),
  };
}

/**
 * Sequential requests over one keep-alive connection, timed with hrtime: autocannon reports whole
 * milliseconds, too coarse for "adds under 1 ms".
 */
async function sequentialLatency(
  url: string,
  headers: Record<string, string>,
  count: number,
  stream = false,
) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const body = chatBody(stream);
  // JSON: time to the end of the response. Streaming: time to the first body byte (first SSE event).
  const once = () =>
    new Promise<number>((resolve, reject) => {
      const start = process.hrtime.bigint();
      const elapsed = () => Number(process.hrtime.bigint() - start) / 1e6;
      const req = request(
        url,
        {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench', ...headers },
        },
        (res) => {
          let first: number | undefined;
          res.on('data', () => {
            first ??= elapsed();
          });
          res.on('end', () => resolve(stream ? (first ?? elapsed()) : elapsed()));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  for (let i = 0; i < 200; i++) await once();
  const samples: number[] = [];
  for (let i = 0; i < count; i++) samples.push(await once());
  agent.destroy();
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] ?? 0;
  return { p50: at(0.5), p99: at(0.99) };
}

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
    await start('bare proxy', [`${root}apps/gateway/bench/bare-proxy.mjs`, String(barePort), `${mock}/v1`]),
  );
  children.push(
    await start('gateway', [...tsx, `${root}apps/gateway/src/main.ts`], {
      PORT: String(gatewayPort),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      // BENCH_NO_EVENTS=1 isolates the proxy's own cost (diagnosis only; reported figures publish events).
      ...(process.env.BENCH_NO_EVENTS ? {} : { NATS_URL: nats.url }),
      CUSTOM_HOST_ALLOWLIST: '127.0.0.1',
    }),
  );
  await waitHttp(`http://127.0.0.1:${gatewayPort}/readyz`);
  const [mockPid, barePid, gatewayPid] = children.map((c) => c.pid);
  const gatewayHeaders = { 'x-service-provider': 'openai', 'x-service-custom-host': `${mock}/v1` };
  const rows: Row[] = [];
  for (const stream of [false, true]) {
    for (const connections of [1, 32]) {
      const gatewayUrl = `http://127.0.0.1:${gatewayPort}/v1/chat/completions`;
      rows.push(
        await load('direct', `${mock}/v1/chat/completions`, {}, stream, connections, { proxy: mockPid }),
      );
      rows.push(
        await load('bare-proxy', `http://127.0.0.1:${barePort}/chat/completions`, {}, stream, connections, {
          proxy: barePid,
        }),
      );
      rows.push(
        await load('gateway', gatewayUrl, gatewayHeaders, stream, connections, {
          proxy: gatewayPid,
          nats: nats.pid,
        }),
      );
    }
  }
  console.table(rows);
  const precise = {
    direct: await sequentialLatency(`${mock}/v1/chat/completions`, {}, 2000),
    bare: await sequentialLatency(`http://127.0.0.1:${barePort}/chat/completions`, {}, 2000),
    gateway: await sequentialLatency(
      `http://127.0.0.1:${gatewayPort}/v1/chat/completions`,
      gatewayHeaders,
      2000,
    ),
  };
  console.log('sequential latency, 1 connection, ms:', JSON.stringify(precise));
  const ttfb = {
    direct: await sequentialLatency(`${mock}/v1/chat/completions`, {}, 1000, true),
    gateway: await sequentialLatency(
      `http://127.0.0.1:${gatewayPort}/v1/chat/completions`,
      gatewayHeaders,
      1000,
      true,
    ),
  };
  console.log(
    `streaming time to first byte: gateway adds p50 ${(ttfb.gateway.p50 - ttfb.direct.p50).toFixed(3)} ms, ` +
      `p99 ${(ttfb.gateway.p99 - ttfb.direct.p99).toFixed(3)} ms over direct (${JSON.stringify(ttfb)})`,
  );
  console.log(
    `gateway adds p50 ${(precise.gateway.p50 - precise.direct.p50).toFixed(3)} ms, p99 ${(precise.gateway.p99 - precise.direct.p99).toFixed(3)} ms over direct ` +
      `(bare proxy adds p50 ${(precise.bare.p50 - precise.direct.p50).toFixed(3)} ms)`,
  );
  const published = (await jsm.streams.info(REQUESTS_STREAM)).state.messages;
  for (const scenario of ['json', 'stream']) {
    const pick = (target: string, c: number) =>
      rows.find((r) => r.target === target && r.scenario === scenario && r.connections === c);
    const gw32 = pick('gateway', 32);
    const bare32 = pick('bare-proxy', 32);
    if (!gw32 || !bare32) continue;
    console.log(
      `${scenario}: gateway/bare-proxy throughput at 32 connections = ${((gw32.rps / bare32.rps) * 100).toFixed(1)}%`,
    );
  }
  console.log(`request events in JetStream: ${published}`);
} finally {
  for (const child of children) child.kill('SIGTERM');
  await nc.close();
  await nats.stop();
}
