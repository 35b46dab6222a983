// Rejects regular expressions that can backtrack catastrophically (ReDoS), by a documented heuristic.
import { type CharSet, EMPTY, intersects, union } from './char-sets.js';
import { type Alternation, parseRegex, type RegexNode } from './regex-parser.js';

export const MAX_REGEX_LENGTH = 512;
/** Every config regex is compiled with these flags, by the check and by the gateway alike. */
export const REGEX_FLAGS = 'u';

export type RegexRejection =
  | 'too_long'
  | 'syntax'
  | 'backreference'
  | 'nested_quantifier'
  | 'overlapping_alternation';

export type RegexVerdict =
  | { readonly safe: true }
  | { readonly safe: false; readonly reason: RegexRejection; readonly message: string };

/**
 * The heuristic (see docs/config.md): a pattern is refused when it
 * - is longer than MAX_REGEX_LENGTH, or does not compile with the `u` flag;
 * - uses a backreference (`\1`, `\k<name>`): matching with them is NP-hard;
 * - repeats (max > 1) something that itself contains a variable-length repetition: `(a+)+`,
 *   `(a*)*`, `(a?){30}`, `(.*a){20}`, unless the repeated part is *delimited*: a flat sequence of
 *   single-character terms where every variable run (`[a-z]+`, `\d*`) is followed, cyclically, by a
 *   term that must consume a character the run cannot (`([a-z]+,)*`, `(\d+\.){3}`), so each run's
 *   extent is forced and there is only one way to split the text;
 * - repeats (max > 1) an alternation, anywhere inside the repeated part, whose branches can start
 *   with the same character or can match nothing: `(a|a)*`, `(\w|\d)+`, `(a|)+`.
 * It is conservative: some safe patterns are refused (they can be unrolled), and it does not look for
 * quadratic cases such as `\d+\d+`, whose cost stays polynomial and low-degree.
 */
export function checkRegex(source: string): RegexVerdict {
  if (source.length > MAX_REGEX_LENGTH) {
    return refuse('too_long', `is longer than ${MAX_REGEX_LENGTH} characters`);
  }
  try {
    new RegExp(source, REGEX_FLAGS);
  } catch (err) {
    const detail = (err as Error).message.split(': ').at(-1) ?? 'invalid';
    return refuse('syntax', `does not compile: ${detail}`);
  }
  return analyse(parseRegex(source), source);
}

export function isSafeRegex(source: string): boolean {
  return checkRegex(source).safe;
}

/** Compile a pattern that passed checkRegex, with the flags every config regex uses. */
export function compileRegex(source: string): RegExp {
  return new RegExp(source, REGEX_FLAGS);
}

function refuse(reason: RegexRejection, message: string): RegexVerdict {
  return { safe: false, reason, message };
}

function analyse(pattern: Alternation, source: string): RegexVerdict {
  for (const node of nodesOf(pattern)) {
    if (node.kind === 'backreference') {
      return refuse('backreference', 'uses a backreference, which can backtrack exponentially');
    }
  }
  for (const node of nodesOf(pattern)) {
    if (node.kind !== 'repeat' || node.max <= 1) continue;
    const excerpt = quote(source.slice(node.start, node.end));
    const inner = [...nodesOf([[node.body]])].slice(1);
    if (inner.some((n) => n.kind === 'repeat' && n.min !== n.max) && !isDelimited(node.body)) {
      return refuse(
        'nested_quantifier',
        `repeats a variable-length repetition in ${excerpt}, which can backtrack catastrophically`,
      );
    }
    const groups = [node.body, ...inner].filter((n) => n.kind === 'group' || n.kind === 'lookaround');
    if (groups.some((g) => ambiguousBranches(g.body))) {
      return refuse(
        'overlapping_alternation',
        `repeats alternatives that can match the same text in ${excerpt}, which can backtrack catastrophically`,
      );
    }
  }
  return { safe: true };
}

function quote(text: string): string {
  return `\`${text.length > 40 ? `${text.slice(0, 37)}...` : text}\``;
}

/** See checkRegex: every variable run is followed by a term that must consume a character outside it. */
function isDelimited(body: RegexNode): boolean {
  const sequence = body.kind === 'group' && body.body.length === 1 ? body.body[0]! : [body];
  const terms = sequence.filter((n) => n.kind !== 'assertion');
  const sets: CharSet[] = [];
  for (const term of terms) {
    if (term.kind === 'char') sets.push(term.set);
    else if (term.kind === 'repeat' && term.body.kind === 'char') sets.push(term.body.set);
    else return false;
  }
  for (let i = 0; i < terms.length; i++) {
    const term = terms[i]!;
    if (term.kind !== 'repeat' || term.min === term.max) continue;
    const next = (i + 1) % terms.length;
    const follower = terms[next]!;
    if (follower.kind === 'repeat' && follower.min === 0) return false;
    if (intersects(sets[i]!, sets[next]!)) return false;
  }
  return true;
}

/** Every node of a pattern, depth first, outer before inner. */
function* nodesOf(alternation: Alternation): Generator<RegexNode> {
  for (const branch of alternation) {
    for (const node of branch) {
      yield node;
      if (node.kind === 'group' || node.kind === 'lookaround') yield* nodesOf(node.body);
      else if (node.kind === 'repeat') yield* nodesOf([[node.body]]);
    }
  }
}

function ambiguousBranches(body: Alternation): boolean {
  if (body.length < 2) return false;
  if (body.some(sequenceNullable)) return true;
  const firsts = body.map(sequenceFirst);
  for (let i = 0; i < firsts.length; i++) {
    for (let j = i + 1; j < firsts.length; j++) {
      if (intersects(firsts[i]!, firsts[j]!)) return true;
    }
  }
  return false;
}

function nullable(node: RegexNode): boolean {
  switch (node.kind) {
    case 'char':
      return false;
    case 'group':
      return node.body.some(sequenceNullable);
    case 'repeat':
      return node.min === 0 || nullable(node.body);
    default:
      return true;
  }
}

function sequenceNullable(sequence: readonly RegexNode[]): boolean {
  return sequence.every(nullable);
}

/** The characters a match of `node` can start with. */
function first(node: RegexNode): CharSet {
  switch (node.kind) {
    case 'char':
      return node.set;
    case 'group':
      return union(...node.body.map(sequenceFirst));
    case 'repeat':
      return node.max === 0 ? EMPTY : first(node.body);
    default:
      return EMPTY;
  }
}

function sequenceFirst(sequence: readonly RegexNode[]): CharSet {
  const sets: CharSet[] = [];
  for (const node of sequence) {
    sets.push(first(node));
    if (!nullable(node)) break;
  }
  return union(...sets);
}
