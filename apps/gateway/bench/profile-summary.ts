// Reads a V8 .cpuprofile (node --cpu-prof) and prints where the time went: self time by function,
// inclusive time of the project's own functions, and self time by area (project, package, node).
// Usage: tsx bench/profile-summary.ts <file.cpuprofile> [top]
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
  /** Samples by source line of the function (1-based lines of the file that ran). */
  positionTicks?: { line: number; ticks: number }[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
}

export function area(url: string): string {
  if (url === '') return '(native/vm)';
  if (url.startsWith('node:')) return url.replace(/^node:internal\/|^node:/, 'node:');
  const pkg = url.match(/node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/);
  if (pkg) return pkg[1] ?? url;
  const own = url.match(/\/(apps|packages)\/([^/]+)\//);
  return own ? `${own[1]}/${own[2]}` : url;
}

/** The project's code (sources, a build of them, the bench), not node's nor a dependency's. */
export const isOwn = (url: string) =>
  url !== '' && !url.startsWith('node:') && !url.includes('/node_modules/') && !url.startsWith('wasm:');

const label = (n: ProfileNode) =>
  `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/(apps|packages|node_modules)\//, '$1/')}:${n.callFrame.lineNumber + 1}:${n.callFrame.columnNumber + 1}`;

export function summariseProfile(file: string, top = 30): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const totalHits = profile.nodes.reduce((sum, n) => sum + (n.hitCount ?? 0), 0);
  const usPerHit = (profile.endTime - profile.startTime) / Math.max(1, totalHits);
  const idle = profile.nodes
    .filter((n) => n.callFrame.functionName === '(idle)')
    .reduce((s, n) => s + (n.hitCount ?? 0), 0);
  const busy = totalHits - idle;
  const self = new Map<string, number>();
  const areas = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  for (const n of profile.nodes) {
    const hits = n.hitCount ?? 0;
    if (hits === 0 || n.callFrame.functionName === '(idle)') continue;
    self.set(label(n), (self.get(label(n)) ?? 0) + hits);
    const a = area(n.callFrame.url);
    areas.set(a, (areas.get(a) ?? 0) + hits);
    // Inclusive time of own code: credit each distinct own function on the stack once.
    const seen = new Set<string>();
    for (let at: number | undefined = n.id; at !== undefined; at = parent.get(at)) {
      const node = byId.get(at);
      if (!node || !isOwn(node.callFrame.url)) continue;
      const key = label(node);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + hits);
    }
  }
  const pct = (hits: number) => `${((hits / busy) * 100).toFixed(1).padStart(5)}%`;
  const table = (title: string, map: Map<string, number>, n: number) =>
    [
      title,
      ...[...map.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, n)
        .map(([k, hits]) => `  ${pct(hits)}  ${k}`),
    ].join('\n');
  return [
    `busy ${((busy * usPerHit) / 1e6).toFixed(2)} s of ${((totalHits * usPerHit) / 1e6).toFixed(2)} s sampled`,
    table('self time by function (share of busy time):', self, top),
    table('inclusive time of project functions:', inclusive, top),
    table('self time by area:', areas, 25),
  ].join('\n\n');
}

/**
 * Where inside the functions named `name` the samples fell: shares of those functions' samples by
 * line of the file that ran (the compiled JavaScript for a build): which line of a hot function,
 * e.g. an object spread, costs what.
 */
export function lineTicks(file: string, name: string): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const lines = new Map<string, number>();
  let total = 0;
  for (const n of profile.nodes) {
    if (n.callFrame.functionName !== name) continue;
    const where = n.callFrame.url.replace(/^.*\/(apps|packages|node_modules)\//, '$1/');
    for (const { line, ticks } of n.positionTicks ?? []) {
      lines.set(`${where}:${line}`, (lines.get(`${where}:${line}`) ?? 0) + ticks);
      total += ticks;
    }
  }
  return [
    `${name}: ${total} samples`,
    ...[...lines]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 20)
      .map(([at, ticks]) => `  ${((ticks / Math.max(1, total)) * 100).toFixed(1).padStart(5)}%  ${at}`),
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, top, name] = process.argv.slice(2);
  if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [top] [function name]');
  console.log(name ? lineTicks(file, name) : summariseProfile(file, Number(top ?? 30)));
}
