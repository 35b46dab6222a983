// Reads a sampled allocation profile (alloc-sampling-preload.cjs, .heapprofile) and prints where the
// bytes were allocated: by function (the leaf frame), and by the nearest frame of the project's own
// code above it, so that node's and the dependencies' allocations are charged to the project
// function that caused them. Shares of the sampled bytes; divide the total by the requests served
// in the sampled seconds for bytes per request. Usage: tsx bench/alloc-summary.ts <file> [top]
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { area, isOwn } from './profile-summary.js';

interface AllocNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: AllocNode[];
}

/** The function, and its file (the project's) or its package or node module (the others'). */
function label(n: AllocNode): string {
  const { functionName, url, lineNumber } = n.callFrame;
  const where =
    url === '' ? '(native)' : isOwn(url) ? url.replace(/^.*\/(apps|packages)\//, '$1/') : area(url);
  return `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`;
}

export function summariseAllocations(file: string, top = 30): string {
  const head = (JSON.parse(readFileSync(file, 'utf8')) as { head: AllocNode }).head;
  const byLeaf = new Map<string, number>();
  const byOwn = new Map<string, number>();
  let total = 0;
  const walk = (node: AllocNode, own: AllocNode | undefined) => {
    const nearest = isOwn(node.callFrame.url) ? node : own;
    if (node.selfSize > 0) {
      total += node.selfSize;
      const leaf = label(node);
      byLeaf.set(leaf, (byLeaf.get(leaf) ?? 0) + node.selfSize);
      const owner = nearest ? label(nearest) : '(no frame of the project)';
      byOwn.set(owner, (byOwn.get(owner) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child, nearest);
  };
  walk(head, undefined);
  const table = (title: string, map: Map<string, number>) =>
    [
      title,
      ...[...map]
        .sort((a, b) => b[1] - a[1])
        .slice(0, top)
        .map(([name, bytes]) => `${((100 * bytes) / total).toFixed(1).padStart(5)}%  ${name}`),
    ].join('\n');
  return [
    `sampled ${(total / 1e6).toFixed(1)} MB`,
    table('by allocating function:', byLeaf),
    table('by nearest project function:', byOwn),
  ].join('\n\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, top] = process.argv.slice(2);
  if (!file) throw new Error('usage: tsx bench/alloc-summary.ts <file.heapprofile> [top]');
  console.log(summariseAllocations(file, Number(top ?? 30)));
}
