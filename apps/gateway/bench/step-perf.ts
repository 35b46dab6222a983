// Diagnosis of why one target's steps cost more in some rounds than in others: proxy-load.ts's three
// json targets (bare proxy, pass-through, full enforcement on the stack) in rotating rounds of 4 s
// steps, with `perf` attached to the proxy under test for exactly the step. STEP_PERF=stat (default)
// counts, per request, the event-loop turns (epoll_pwait), read/write/writev calls and context
// switches; STEP_PERF=record samples on-CPU stacks (999 Hz, all threads) into
// STEP_PERF_DIR/<target>-<round>.data, for `perf report --sort dso,sym -n` (start the targets with
// NODE_OPTIONS=--perf-basic-prof to name JIT code; its maps go stale as code moves, so read JIT
// symbols by tier and in sums, not one by one). STEP_PERF_ROUNDS rounds (default 6); the logger is
// paused throughout, as in proxy-load.ts. Needs `perf` (linux-perf) and root or
// perf_event_paranoid <= 1 for syscall tracepoints. docs/performance-journal.md, eighth session.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { load, startBench } from './harness.js';
import { settle } from './proc.js';
import { startStackEnforcement } from './stack-enforcement.js';

const MODE = process.env.STEP_PERF ?? 'stat';
if (MODE !== 'stat' && MODE !== 'record') throw new Error(`STEP_PERF must be stat or record, not ${MODE}`);
const ROUNDS = Number(process.env.STEP_PERF_ROUNDS ?? 6);
const DIR = process.env.STEP_PERF_DIR ?? fileURLToPath(new URL('../.aigw/step-perf', import.meta.url));
const STEP_S = 4;
const CONNECTIONS = 32;
const EVENTS = [
  'syscalls:sys_enter_epoll_pwait',
  'syscalls:sys_enter_read',
  'syscalls:sys_enter_write',
  'syscalls:sys_enter_writev',
  'context-switches',
];
mkdirSync(DIR, { recursive: true });

const bench = await startBench({
  events: true,
  gatewayEntry: fileURLToPath(new URL('../dist/main.js', import.meta.url)),
});
const stack = await startStackEnforcement(bench.mock.url).catch(async (err) => {
  await bench.stop();
  throw err;
});
const around = { nats: bench.nats.pid, mock: bench.mock.pid, others: stack.others };
const targets = {
  bare: { url: `${bench.bare.url}/chat/completions`, headers: {}, pid: bench.bare.pid },
  pass: {
    url: `${bench.gateway.url}/v1/chat/completions`,
    headers: bench.gatewayHeaders,
    pid: bench.gateway.pid,
  },
  full: { url: `${stack.url}/v1/chat/completions`, headers: stack.headers, pid: stack.pid },
} as const;
type Name = keyof typeof targets;
console.log(
  `pids: bare ${targets.bare.pid}, pass ${targets.pass.pid}, full ${targets.full.pid}; perf ${MODE} -> ${DIR}`,
);

/** The processes around the proxy, for proc.ts settle (as proxy-load.ts). */
const aroundPids = () =>
  [bench.nats.pid, bench.mock.pid, ...Object.values(stack.others).flatMap((list) => list())].filter(
    (pid): pid is number => pid !== undefined,
  );

function perfArgs(pid: number, file: string): string[] {
  return MODE === 'stat'
    ? ['stat', '-x', ',', '-o', file, '-e', EVENTS.join(','), '-p', String(pid)]
    : ['record', '-F', '999', '-o', file, '-p', String(pid)];
}

/** `perf stat -x ,` lines: value,unit,event,... -> "event=value per request". */
function perRequest(file: string, requests: number): string {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => /^\d/.test(line))
    .map((line) => {
      const [value, , event] = line.split(',');
      return `${event?.replace('syscalls:sys_enter_', '')} ${(Number(value) / requests).toFixed(2)}`;
    })
    .join(', ');
}

async function step(name: Name, round: number, attach: boolean): Promise<void> {
  const target = targets[name];
  if (target.pid === undefined) throw new Error(`${name}: no pid`);
  await settle(aroundPids);
  const file = `${DIR}/${name}-${round}.${MODE === 'stat' ? 'stat' : 'data'}`;
  const perf = attach ? spawn('perf', perfArgs(target.pid, file), { stdio: 'ignore' }) : undefined;
  if (perf) await new Promise((resolve) => setTimeout(resolve, 300));
  const at = new Date().toISOString().slice(11, 19);
  const row = await load(name, target.url, target.headers, false, CONNECTIONS, STEP_S, {
    proxy: target.pid,
    ...around,
  });
  if (perf) {
    perf.kill('SIGINT');
    await new Promise((resolve) => perf.once('exit', resolve));
  }
  const counts = perf && MODE === 'stat' ? ` | per request: ${perRequest(file, row.total)}` : '';
  console.log(
    `${at} r${round} ${name.padEnd(4)} ${row.total} req, ${row.cpuPerRequest} µs/req, proxy ${row.proxyCorePct}% of a core${counts}`,
  );
}

stack.pauseLogger();
try {
  for (const name of ['bare', 'pass', 'full'] as const) await step(name, -1, false);
  for (let round = 0; round < ROUNDS; round++) {
    const names: Name[] = ['bare', 'pass', 'full'];
    for (let i = 0; i < names.length; i++) await step(names[(i + round) % names.length] as Name, round, true);
  }
} finally {
  stack.resumeLogger();
  await stack.stop();
  await bench.stop();
}
