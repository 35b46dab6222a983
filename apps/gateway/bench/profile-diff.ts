// Compares two V8 .cpuprofile files of the same build under the same load, function by function: each
// profile's self time shares of its busy time, times the CPU per request measured outside the profile
// (/proc), give µs per request by function; prints the largest differences B - A (self time, then the
// inclusive time of the project's own functions, then by area). Shares, not the profiles' own
// durations: on a shared machine a sample also lands while the process waits for a core.
// Usage: tsx bench/profile-diff.ts <a.cpuprofile> <a µs/req> <b.cpuprofile> <b µs/req> [top]
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { area, isOwn, type ProfileNode } from './profile-summary.js';

const label = (n: ProfileNode) =>
  `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/(apps|packages|node_modules)\//, '$1/')}:${n.callFrame.lineNumber + 1}`;

interface Shares {
  self: Map<string, number>;
  inclusive: Map<string, number>;
  areas: Map<string, number>;
}

/** µs per request by function, given the measured CPU per request. */
function shares(file: string, usPerRequest: number): Shares {
  const nodes = (JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[] }).nodes;
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const busy = nodes
    .filter((n) => n.callFrame.functionName !== '(idle)')
    .reduce((sum, n) => sum + (n.hitCount ?? 0), 0);
  const scale = usPerRequest / Math.max(1, busy);
  const out: Shares = { self: new Map(), inclusive: new Map(), areas: new Map() };
  const add = (map: Map<string, number>, key: string, us: number) => map.set(key, (map.get(key) ?? 0) + us);
  for (const n of nodes) {
    const hits = n.hitCount ?? 0;
    if (hits === 0 || n.callFrame.functionName === '(idle)') continue;
    const us = hits * scale;
    add(out.self, label(n), us);
    add(out.areas, area(n.callFrame.url), us);
    const seen = new Set<string>();
    for (let at: number | undefined = n.id; at !== undefined; at = parent.get(at)) {
      const node = byId.get(at);
      if (!node || !isOwn(node.callFrame.url)) continue;
      const key = label(node);
      if (seen.has(key)) continue;
      seen.add(key);
      add(out.inclusive, key, us);
    }
  }
  return out;
}

function diff(title: string, a: Map<string, number>, b: Map<string, number>, top: number): string {
  const keys = new Set([...a.keys(), ...b.keys()]);
  const rows = [...keys]
    .map((k) => ({ k, a: a.get(k) ?? 0, b: b.get(k) ?? 0 }))
    .sort((x, y) => Math.abs(y.b - y.a) - Math.abs(x.b - x.a))
    .slice(0, top);
  const f = (v: number) => v.toFixed(2).padStart(7);
  return [title, ...rows.map((r) => `  ${f(r.b - r.a)}  (A ${f(r.a)}, B ${f(r.b)})  ${r.k}`)].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [fileA, usA, fileB, usB, top] = process.argv.slice(2);
  if (!fileA || !usA || !fileB || !usB)
    throw new Error('usage: profile-diff.ts <a.cpuprofile> <a µs/req> <b.cpuprofile> <b µs/req> [top]');
  const a = shares(fileA, Number(usA));
  const b = shares(fileB, Number(usB));
  const n = Number(top ?? 40);
  console.log('µs per request, B - A (A, B):\n');
  console.log(diff('self time by function:', a.self, b.self, n));
  console.log(`\n${diff('inclusive time of project functions:', a.inclusive, b.inclusive, n)}`);
  console.log(`\n${diff('self time by area:', a.areas, b.areas, 25)}`);
}
