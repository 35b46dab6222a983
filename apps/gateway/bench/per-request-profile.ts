// Where each proxy's cost per request goes, target by target: the bare proxy, the pass-through
// gateway and (PRP_FULL=1) the stack's full-enforcement gateway, each loaded alone with the json
// scenario as in proxy-load.ts (32 connections), with a profiler running in the proxy under test for
// exactly one load step (a preload in signal mode: SIGUSR2 starts it, the next stops it).
//   PRP_KIND=alloc (default): V8's sampling heap profiler (alloc-sampling-preload.cjs); its sampled
//     bytes (scaled by V8 to estimate all allocations, also what the next scavenge frees) over the
//     step's requests: bytes allocated per request, and the largest allocation sites.
//   PRP_KIND=cpu: V8's CPU profiler (cpu-prof-preload.cjs, 100 µs samples); the samples over the
//     step's requests: µs per request by area (node, a package, the project) and by project function
//     (self time, which includes the builtins they call, e.g. JSON.parse). The profiler's own cost
//     makes every figure dearer than in proxy-load.ts: compare targets and builds, not absolutes.
// PRP_ROUNDS (default 1) rounds of every target (rotating order; the tables are over all of them,
// and CPU runs also print full enforcement - pass-through and pass-through - bare proxy), PRP_TOP
// (default 25) rows per table, PRP_STEP_S (default 5) seconds per profiled step.
// Usage: PRP_KIND=cpu PRP_FULL=1 tsx --conditions=@aigw/source bench/per-request-profile.ts
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { summariseAllocations } from './alloc-summary.js';
import { load, startBench } from './harness.js';
import { area, isOwn, type ProfileNode } from './profile-summary.js';
import { type StackEnforcement, startStackEnforcement } from './stack-enforcement.js';

const KIND = process.env.PRP_KIND ?? 'alloc';
if (KIND !== 'alloc' && KIND !== 'cpu') throw new Error(`PRP_KIND must be alloc or cpu, not ${KIND}`);
const STEP_S = Number(process.env.PRP_STEP_S ?? 5);
const TOP = Number(process.env.PRP_TOP ?? 25);
const ROUNDS = Number(process.env.PRP_ROUNDS ?? 1);
const dir = mkdtempSync(join(tmpdir(), 'aigw-prp-'));
const preload = fileURLToPath(
  new URL(KIND === 'alloc' ? './alloc-sampling-preload.cjs' : './cpu-prof-preload.cjs', import.meta.url),
);
// Children inherit this: only the proxies under test profile (their entry paths match).
process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --require ${preload}`.trim();
Object.assign(
  process.env,
  KIND === 'alloc'
    ? { ALLOC_MATCH: 'bare-proxy.mjs|gateway/dist/main.js', ALLOC_DIR: dir, ALLOC_ON_SIGNAL: '1' }
    : {
        CPU_PROF_MATCH: 'bare-proxy.mjs|gateway/dist/main.js',
        CPU_PROF_DIR: dir,
        CPU_PROF_ON_SIGNAL: '1',
        CPU_PROF_INTERVAL_US: '100',
      },
);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function written(pid: number, before: Set<string>): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const made = readdirSync(dir).filter(
      (f) => f.startsWith(`${pid}-`) && !f.endsWith('.partial') && !before.has(f),
    );
    if (made[0]) return join(dir, made[0]);
    await sleep(100);
  }
  throw new Error(`no profile from process ${pid}`);
}

const table = (map: Map<string, number>, unit: string) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, TOP)
    .map(([name, value]) => `${value.toFixed(2).padStart(8)} ${unit}  ${name}`)
    .join('\n');

/** What one target's profiled steps add up to: samples (µs) by area and by project function. */
interface Tally {
  requests: number;
  busy: number;
  areas: Map<string, number>;
  own: Map<string, number>;
  bytes: number;
  files: string[];
}
const tally = (): Tally => ({ requests: 0, busy: 0, areas: new Map(), own: new Map(), bytes: 0, files: [] });
const add = (map: Map<string, number>, key: string, value: number) =>
  map.set(key, (map.get(key) ?? 0) + value);

function addAllocations(into: Tally, file: string): void {
  const walk = (node: { selfSize: number; children: unknown[] }) => {
    into.bytes += node.selfSize;
    for (const child of node.children) walk(child as typeof node);
  };
  walk((JSON.parse(readFileSync(file, 'utf8')) as { head: { selfSize: number; children: unknown[] } }).head);
  into.files.push(file);
}

function addCpu(into: Tally, file: string): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as {
    nodes: ProfileNode[];
    startTime: number;
    endTime: number;
    samples: number[];
  };
  const perSample = (profile.endTime - profile.startTime) / Math.max(1, profile.samples.length);
  for (const node of profile.nodes) {
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)' || !node.hitCount) continue;
    const us = node.hitCount * perSample;
    into.busy += us;
    add(into.areas, functionName.startsWith('(') ? functionName : area(url), us);
    if (isOwn(url)) {
      const name = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(apps|packages)\//, '$1/')}:${lineNumber + 1}`;
      add(into.own, name, us);
    }
  }
}

const perRequest = (map: Map<string, number>, requests: number) =>
  new Map([...map].map(([key, us]) => [key, us / Math.max(1, requests)]));

/** B - A per request, largest first (positive: B costs more). */
function difference(a: Tally, b: Tally, pick: (t: Tally) => Map<string, number>): Map<string, number> {
  const pa = perRequest(pick(a), a.requests);
  const out = perRequest(pick(b), b.requests);
  for (const [key, us] of pa) add(out, key, -us);
  return out;
}

function report(name: string, t: Tally): string {
  if (KIND === 'alloc') {
    const per = `${(t.bytes / Math.max(1, t.requests) / 1024).toFixed(1)} KB allocated per request`;
    return [`== ${name}: ${per}`, ...t.files.slice(-1).map((file) => summariseAllocations(file, TOP))].join(
      '\n',
    );
  }
  return [
    `== ${name}: ${(t.busy / Math.max(1, t.requests)).toFixed(1)} µs of samples per request (profiled)`,
    'by area:',
    table(perRequest(t.areas, t.requests), 'µs'),
    "project functions' self time:",
    table(perRequest(t.own, t.requests), 'µs'),
  ].join('\n');
}

const bench = await startBench({
  events: true,
  gatewayEntry: fileURLToPath(new URL('../dist/main.js', import.meta.url)),
});
let stack: StackEnforcement | undefined;
try {
  if (process.env.PRP_FULL === '1') {
    stack = await startStackEnforcement(bench.mock.url);
    // As in proxy-load.ts: its events wait in JetStream, the other core is not spent on them.
    stack.pauseLogger();
  }
  const targets = [
    { name: 'bare proxy', url: `${bench.bare.url}/chat/completions`, headers: {}, pid: bench.bare.pid },
    {
      name: 'pass-through',
      url: `${bench.gateway.url}/v1/chat/completions`,
      headers: bench.gatewayHeaders,
      pid: bench.gateway.pid,
    },
    ...(stack
      ? [
          {
            name: 'full enforcement',
            url: `${stack.url}/v1/chat/completions`,
            headers: stack.headers,
            pid: stack.pid,
          },
        ]
      : []),
  ];
  const tallies = new Map(targets.map((target) => [target.name, tally()]));
  for (let round = 0; round < ROUNDS; round++) {
    // Rotated from round to round, as in proxy-load.ts: no target always follows the same one.
    for (const target of [
      ...targets.slice(round % targets.length),
      ...targets.slice(0, round % targets.length),
    ]) {
      const pid = target.pid;
      if (pid === undefined) throw new Error(`${target.name}: no process id`);
      await load(target.name, target.url, target.headers, false, 32, 2, { proxy: pid }); // warm-up
      const before = new Set(readdirSync(dir));
      process.kill(pid, 'SIGUSR2');
      const row = await load(target.name, target.url, target.headers, false, 32, STEP_S, { proxy: pid });
      process.kill(pid, 'SIGUSR2');
      const file = await written(pid, before);
      const into = tallies.get(target.name) as Tally;
      into.requests += row.total;
      if (KIND === 'alloc') addAllocations(into, file);
      else addCpu(into, file);
      console.log(
        `round ${round + 1} ${target.name}: ${row.total} requests, ${row.cpuPerRequest} µs CPU per request (profiled), errors ${row.errors}`,
      );
    }
  }
  for (const [name, t] of tallies) console.log(`\n${report(name, t)}`);
  const bare = tallies.get('bare proxy') as Tally;
  const pass = tallies.get('pass-through') as Tally;
  const full = tallies.get('full enforcement');
  if (KIND === 'cpu') {
    console.log(
      `\n== pass-through - bare proxy, by area:\n${table(
        difference(bare, pass, (t) => t.areas),
        'µs',
      )}`,
    );
    if (full) {
      console.log(
        `\n== full enforcement - pass-through, by area:\n${table(
          difference(pass, full, (t) => t.areas),
          'µs',
        )}`,
      );
      console.log(
        `\n== full enforcement - pass-through, by project function:\n${table(
          difference(pass, full, (t) => t.own),
          'µs',
        )}`,
      );
    }
  }
} finally {
  await stack?.stop();
  await bench.stop();
}
