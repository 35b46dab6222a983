// Checks on JSON where it enters a service: a bounded nesting depth and well-formed Unicode text.
// `JSON.parse` accepts both unbounded depth (`JSON.stringify` of the result then overflows the stack)
// and lone surrogate escapes (`"\ud800"`, which Postgres text and jsonb refuse), so both are refused
// up front, before the value reaches validation, storage or an audit record.

/** Deepest nesting of objects and arrays accepted in a JSON document (the document itself is depth 1). */
export const MAX_JSON_DEPTH = 128;

/** In `u` mode a well-formed surrogate pair is one code point: only an unpaired half matches. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

export interface JsonInputProblem {
  /** Dotted path of the offending value, from `root` (e.g. `body.metadata.name`). */
  readonly path: string;
  readonly message: string;
}

/** True when `text` holds an unpaired UTF-16 surrogate (not Unicode text). */
export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

/** `text` with every unpaired surrogate replaced by U+FFFD: storable, and as close as text can be. */
export function toWellFormed(text: string): string {
  return hasLoneSurrogate(text) ? text.replace(/[\uD800-\uDFFF]/gu, '\uFFFD') : text;
}

/**
 * The first depth or text problem of a parsed JSON value, or undefined. Iterative (safe on any
 * input) and stops at the first problem; object keys are checked like string values.
 */
export function jsonInputProblem(
  value: unknown,
  root = 'body',
  maxDepth = MAX_JSON_DEPTH,
): JsonInputProblem | undefined {
  const pending: { value: unknown; depth: number; path: readonly (string | number)[] }[] = [
    { value, depth: 1, path: [root] },
  ];
  while (pending.length > 0) {
    const current = pending.pop()!;
    const v = current.value;
    if (typeof v === 'string') {
      if (hasLoneSurrogate(v)) return surrogate(current.path);
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (current.depth > maxDepth)
      return {
        path: current.path.join('.'),
        message: `${current.path.join('.')}: JSON nests deeper than ${maxDepth} levels`,
      };
    for (const [key, inner] of Object.entries(v)) {
      const path = [...current.path, Array.isArray(v) ? Number(key) : key];
      if (hasLoneSurrogate(key)) return surrogate(path);
      pending.push({ value: inner, depth: current.depth + 1, path });
    }
  }
  return undefined;
}

/** True when a parsed JSON value nests objects or arrays deeper than `maxDepth`. Iterative, stops early. */
export function jsonDeeperThan(value: unknown, maxDepth = MAX_JSON_DEPTH): boolean {
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 1 }];
  while (pending.length > 0) {
    const { value: v, depth } = pending.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > maxDepth) return true;
    for (const inner of Object.values(v)) pending.push({ value: inner, depth: depth + 1 });
  }
  return false;
}

function surrogate(path: readonly (string | number)[]): JsonInputProblem {
  const at = path.join('.');
  return {
    path: at,
    message: `${at}: must be valid Unicode text (it holds an unpaired surrogate escape such as \\ud800)`,
  };
}
