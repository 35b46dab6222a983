// Character sets as sorted code-point ranges: just enough set algebra for the regex safety check.

/** Sorted, non-overlapping, non-adjacent inclusive ranges `[lo, hi]`. */
export type CharSet = readonly (readonly [number, number])[];

const MAX_CODE_POINT = 0x10ffff;

export const EMPTY: CharSet = [];
export const ANY: CharSet = [[0, MAX_CODE_POINT]];

export function charSet(ranges: readonly (readonly [number, number])[]): CharSet {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [lo, hi] of sorted) {
    const last = out.at(-1);
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

export function single(codePoint: number): CharSet {
  return [[codePoint, codePoint]];
}

export function union(...sets: CharSet[]): CharSet {
  return charSet(sets.flat());
}

export function complement(set: CharSet): CharSet {
  const out: [number, number][] = [];
  let next = 0;
  for (const [lo, hi] of set) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

export function intersects(a: CharSet, b: CharSet): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const [alo, ahi] = a[i]!;
    const [blo, bhi] = b[j]!;
    if (alo <= bhi && blo <= ahi) return true;
    if (ahi < bhi) i++;
    else j++;
  }
  return false;
}

const c = (ch: string): number => ch.codePointAt(0)!;

export const DIGIT: CharSet = [[c('0'), c('9')]];
export const WORD: CharSet = charSet([
  [c('0'), c('9')],
  [c('A'), c('Z')],
  [c('_'), c('_')],
  [c('a'), c('z')],
]);
/** What `\s` matches in JavaScript. */
export const SPACE: CharSet = charSet([
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
]);
/** What `.` matches without the `s` flag: everything but line terminators. */
export const DOT: CharSet = complement(
  charSet([
    [0x0a, 0x0a],
    [0x0d, 0x0d],
    [0x2028, 0x2029],
  ]),
);
