// JSON paths and the issue collector: formats paths, keeps issues, returns them in a stable order.
import type { ConfigIssue, ConfigIssueCode } from './config-issue.js';

export type Segment = string | number;

/** At most this many issues are returned: enough to fix a config, bounded for a 400 body. */
export const MAX_ISSUES = 100;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `['config', 'targets', 1, 'weight']` -> `config.targets[1].weight`; odd keys are quoted. */
export function formatPath(segments: readonly Segment[]): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (out === '') out = segment;
    else out += IDENTIFIER.test(segment) ? `.${segment}` : `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** Segment by segment: indexes numerically, keys by code unit, a prefix before its extensions. */
export function compareSegments(a: readonly Segment[], b: readonly Segment[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    if (typeof x === 'number') return -1;
    if (typeof y === 'number') return 1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

interface Entry {
  readonly segments: readonly Segment[];
  readonly code: ConfigIssueCode;
  readonly message: string;
}

export class IssueSink {
  readonly #entries: Entry[] = [];

  add(segments: readonly Segment[], code: ConfigIssueCode, text: string): void {
    this.#entries.push({ segments: [...segments], code, message: `${formatPath(segments)}: ${text}` });
  }

  get size(): number {
    return this.#entries.length;
  }

  /** Sorted by path, then code, then message; duplicates dropped; capped at MAX_ISSUES. */
  sorted(): ConfigIssue[] {
    const entries = [...this.#entries].sort(
      (a, b) =>
        compareSegments(a.segments, b.segments) ||
        compareText(a.code, b.code) ||
        compareText(a.message, b.message),
    );
    const out: ConfigIssue[] = [];
    for (const entry of entries) {
      const previous = out.at(-1);
      if (previous && previous.message === entry.message && previous.code === entry.code) continue;
      out.push({ path: formatPath(entry.segments), code: entry.code, message: entry.message });
      if (out.length === MAX_ISSUES) break;
    }
    return out;
  }
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `null`, `an array`, `a string`, ...: what a value is, for messages (never the value itself). */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'object':
      return 'an object';
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'a boolean';
    case 'undefined':
      return 'undefined';
    default:
      return `a ${typeof value}`;
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
