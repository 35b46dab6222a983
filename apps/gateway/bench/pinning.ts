// Where the bench's processes run: the proxy under test (the gateway or the bare proxy) alone on its
// core, everything else (this process and its load generator, the mock, Redis, NATS, Postgres, the
// control plane, the logger) on the other cores, with taskset from util-linux. Pinned that way the
// proxy is the bottleneck of a step: its CPU per request, not the machine's, sets the throughput.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface Pinning {
  /** True while every process asked for is pinned where it should be. */
  pinned: boolean;
  /** Why the run is unpinned, when it is. */
  reason: string | undefined;
  /** Cores of the proxy under test (BENCH_PROXY_CPUS, default 1). */
  readonly proxyCpus: readonly number[];
  /** Cores of everything else (BENCH_OTHER_CPUS, default 0). */
  readonly otherCpus: readonly number[];
}

/** `0,2-4` -> [0, 2, 3, 4]. */
export function parseCpuList(list: string): number[] {
  const cpus: number[] = [];
  for (const part of list.split(',').map((p) => p.trim())) {
    if (part === '') continue;
    const match = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!match) throw new Error(`not a CPU list: ${list}`);
    const from = Number(match[1]);
    const to = Number(match[2] ?? match[1]);
    for (let cpu = from; cpu <= to; cpu++) cpus.push(cpu);
  }
  return cpus;
}

/** Cores a task may run on (its affinity, e.g. a container's cpuset), from its /proc status file. */
function allowedCpus(statusFile = '/proc/self/status'): number[] {
  const status = readFileSync(statusFile, 'utf8');
  return parseCpuList(status.match(/^Cpus_allowed_list:\s*(.*)$/m)?.[1] ?? '');
}

function tasksetAvailable(): boolean {
  const run = spawnSync('taskset', ['--version'], { encoding: 'utf8' });
  return run.status === 0;
}

let state: Pinning | undefined;

/** Decides the split once (from the environment and the machine); pins nothing. */
export function pinning(): Pinning {
  if (state) return state;
  const proxyCpus = parseCpuList(process.env.BENCH_PROXY_CPUS ?? '1');
  const otherCpus = parseCpuList(process.env.BENCH_OTHER_CPUS ?? '0');
  const allowed = allowedCpus();
  let reason: string | undefined;
  if (process.env.BENCH_PIN === '0') reason = 'BENCH_PIN=0';
  else if (!tasksetAvailable()) reason = 'taskset (util-linux) is not installed';
  else if (allowed.length < 2) reason = `only ${allowed.length} core available`;
  else if ([...proxyCpus, ...otherCpus].some((cpu) => !allowed.includes(cpu)))
    reason = `BENCH_PROXY_CPUS=${proxyCpus} / BENCH_OTHER_CPUS=${otherCpus} not within this process's cores ${allowed}`;
  else if (proxyCpus.some((cpu) => otherCpus.includes(cpu)))
    reason = 'BENCH_PROXY_CPUS and BENCH_OTHER_CPUS overlap';
  state = { pinned: reason === undefined, reason, proxyCpus, otherCpus };
  return state;
}

/** Pins every thread of `pid` to `cpus` and checks that each of them took it. */
function pin(pid: number, cpus: readonly number[], what: string): void {
  const current = pinning();
  if (!current.pinned) return;
  const run = spawnSync('taskset', ['--all-tasks', '--pid', '--cpu-list', cpus.join(','), String(pid)], {
    encoding: 'utf8',
  });
  const wanted = cpus.join(',');
  const wrong = run.status === 0 ? threadsNotOn(pid, cpus) : [];
  if (run.status !== 0 || wrong.length > 0) {
    current.pinned = false;
    current.reason = `pinning ${what} (pid ${pid}) to ${wanted} failed: ${run.stderr.trim() || `threads ${wrong.join(', ')} elsewhere`}`;
  }
}

/** Threads of `pid` whose affinity is not exactly `cpus`. */
function threadsNotOn(pid: number, cpus: readonly number[]): number[] {
  const wanted = [...cpus].sort((a, b) => a - b).join(',');
  const wrong: number[] = [];
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      if (allowedCpus(`/proc/${pid}/task/${tid}/status`).join(',') !== wanted) wrong.push(Number(tid));
    } catch {
      // the thread ended meanwhile
    }
  }
  return wrong;
}

/**
 * Pins this process (the load generator) to the other cores. Call it before starting anything:
 * every process started afterwards inherits the affinity (the services' own children too), and
 * only the proxy under test is moved away with `pinProxy`.
 */
export function pinSelf(): Pinning {
  const current = pinning();
  pin(process.pid, current.otherCpus, 'the bench process');
  return current;
}

/** Moves the proxy under test (every thread of it) to the proxy cores. */
export function pinProxy(pid: number | undefined, what: string): void {
  if (pid === undefined) throw new Error(`${what} has no pid`);
  pin(pid, pinning().proxyCpus, what);
}

/** One line for the output: where things run, or why the figures are unpinned. */
export function describePinning(): string {
  const current = pinning();
  return current.pinned
    ? `pinned: proxy under test on CPU ${current.proxyCpus.join(',')}, everything else on CPU ${current.otherCpus.join(',')} (taskset)`
    : `UNPINNED (${current.reason}): the proxy shares its cores with the load generator and services, so a step shows the machine's limit, not the proxy's`;
}
