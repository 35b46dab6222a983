// Rejects regular expressions that can backtrack catastrophically (ReDoS), by a documented heuristic.
import { type CharSet, EMPTY, intersects, union } from './char-sets.js';
import { type Alternation, parseRegex, type RegexNode } from './regex-parser.js';

export const MAX_REGEX_LENGTH = 512;
/** Longer strings never match a config `$regex`: bounds the polynomial cost that the check allows. */
export const MAX_REGEX_SUBJECT_LENGTH = 1024;
/** Every config regex is compiled with these flags, by the check and by the gateway alike. */
export const REGEX_FLAGS = 'u';

export type RegexRejection =
  | 'too_long'
  | 'syntax'
  | 'backreference'
  | 'nested_quantifier'
  | 'overlapping_alternation'
  | 'overlapping_repetitions';

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
 *   with the same character or can match nothing: `(a|a)*`, `(\w|\d)+`, `(a|)+`;
 * - has two variable-length repetitions in one sequence that can trade text: their characters
 *   overlap, and every term between them can match nothing or can be matched by both
 *   (`.*.*`, `\w+a\w+`, `a+\d*a+`, `.*foo.*bar`, `^\s*(.*?)\s*$`, `\w{1,3}\w{1,3}`): the work
 *   multiplies by the input length (or the repetition bounds) for each such pair.
 * It is conservative: some safe patterns are refused (most can be rewritten). A lone repetition
 * still costs up to quadratic time in an unanchored search, which is why subjects are capped too
 * (MAX_REGEX_SUBJECT_LENGTH).
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
    const where = excerpt(source, node);
    const inner = [...nodesOf([[node.body]])].slice(1);
    if (inner.some((n) => n.kind === 'repeat' && n.min !== n.max) && !isDelimited(node.body)) {
      return refuse(
        'nested_quantifier',
        `repeats a variable-length repetition in ${where}, which can backtrack catastrophically`,
      );
    }
    const groups = [node.body, ...inner].filter((n) => n.kind === 'group' || n.kind === 'lookaround');
    if (groups.some((g) => ambiguousBranches(g.body))) {
      return refuse(
        'overlapping_alternation',
        `repeats alternatives that can match the same text in ${where}, which can backtrack catastrophically`,
      );
    }
  }
  for (const sequence of sequencesOf(pattern)) {
    const verdict = overlappingRepetitions(sequence, source);
    if (verdict) return verdict;
  }
  return { safe: true };
}

/** Every sequence of a pattern, nested ones included. */
function* sequencesOf(alternation: Alternation): Generator<readonly RegexNode[]> {
  for (const branch of alternation) yield branch;
  for (const node of nodesOf(alternation)) {
    if (node.kind === 'group' || node.kind === 'lookaround') yield* node.body;
  }
}

/** A sequence with single-branch groups opened up: `(?:ab+)c+` is `a b+ c+`. */
function flatten(sequence: readonly RegexNode[]): RegexNode[] {
  return sequence.flatMap((node) =>
    node.kind === 'group' && node.body.length === 1 ? flatten(node.body[0]!) : [node],
  );
}

type Span = Extract<RegexNode, { kind: 'repeat' | 'group' }>;

const isVariableRepeat = (node: RegexNode): boolean => node.kind === 'repeat' && node.min !== node.max;

/** A variable-length repetition, or a group of alternatives holding one (taken as one, conservatively). */
function isVariable(node: RegexNode): node is Span {
  if (node.kind === 'repeat') return isVariableRepeat(node);
  return node.kind === 'group' && [...nodesOf(node.body)].some(isVariableRepeat);
}

function overlappingRepetitions(sequence: readonly RegexNode[], source: string): RegexVerdict | undefined {
  const terms = flatten(sequence).filter((n) => n.kind !== 'assertion' && n.kind !== 'lookaround');
  for (let i = 0; i < terms.length; i++) {
    const first = terms[i]!;
    if (!isVariable(first)) continue;
    const firstChars = chars(first);
    // Characters of the required terms passed so far: `first` can give them up to a later repetition.
    const between: CharSet[] = [];
    for (const next of terms.slice(i + 1)) {
      const nextChars = chars(next);
      if (isVariable(next) && canTrade(first, firstChars, next, nextChars, between)) {
        return refuse(
          'overlapping_repetitions',
          `lets ${excerpt(source, first)} and ${excerpt(source, next)} match the same text, which backtracks for a long time on long input`,
        );
      }
      if (nullable(next)) continue;
      if (!intersects(firstChars, nextChars)) break;
      between.push(nextChars);
    }
  }
  return undefined;
}

/**
 * Whether text matched by `first` (and the required terms after it) could be matched by `next`
 * instead. A repeated group whose every iteration needs certain characters (`([a-z]+,)*`) can only
 * trade with a repetition that can match those characters too.
 */
function canTrade(
  first: Span,
  firstChars: CharSet,
  next: Span,
  nextChars: CharSet,
  between: CharSet[],
): boolean {
  return (
    intersects(firstChars, nextChars) &&
    between.every((set) => intersects(set, nextChars)) &&
    requiredSets(first).every((set) => intersects(set, nextChars)) &&
    requiredSets(next).every((set) => intersects(set, firstChars))
  );
}

/** Character sets every iteration of a repeated single-branch group must consume. */
function requiredSets(node: Span): CharSet[] {
  if (node.kind !== 'repeat' || node.body.kind !== 'group' || node.body.body.length !== 1) return [];
  return flatten(node.body.body[0]!)
    .filter((n) => n.kind === 'char' || (n.kind === 'repeat' && n.min > 0 && n.body.kind === 'char'))
    .map(chars);
}

/** Every character a node can consume anywhere inside it. */
function chars(node: RegexNode): CharSet {
  switch (node.kind) {
    case 'char':
      return node.set;
    case 'group':
      return union(...node.body.flat().map(chars));
    case 'repeat':
      return chars(node.body);
    default:
      return EMPTY;
  }
}

function excerpt(source: string, node: Span): string {
  const text = source.slice(node.start, node.end);
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
