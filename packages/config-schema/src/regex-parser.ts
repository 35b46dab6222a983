// A small parser for JavaScript `u`-mode regular expressions, producing the shape the safety check needs.
import {
  ANY,
  type CharSet,
  charSet,
  complement,
  DIGIT,
  DOT,
  SPACE,
  single,
  union,
  WORD,
} from './char-sets.js';

/** A pattern is a list of branches; a branch is a sequence of terms. */
export type Alternation = readonly (readonly RegexNode[])[];

export type RegexNode =
  | { readonly kind: 'char'; readonly set: CharSet }
  /** `^`, `$`, `\b`, `\B`: match no character. */
  | { readonly kind: 'assertion' }
  | { readonly kind: 'lookaround'; readonly body: Alternation }
  | { readonly kind: 'group'; readonly body: Alternation; readonly start: number; readonly end: number }
  | {
      readonly kind: 'repeat';
      readonly min: number;
      readonly max: number;
      readonly body: RegexNode;
      /** Where the repeated term starts and ends in the source, for messages. */
      readonly start: number;
      readonly end: number;
    }
  | { readonly kind: 'backreference' };

/**
 * Parse `source`, which must already compile with the `u` flag (the parser trusts its syntax).
 * Unicode property escapes are read as "any character", which only makes the check stricter.
 */
export function parseRegex(source: string): Alternation {
  return new Parser(source).pattern();
}

const CLASS_ESCAPES: Readonly<Record<string, CharSet>> = {
  d: DIGIT,
  D: complement(DIGIT),
  w: WORD,
  W: complement(WORD),
  s: SPACE,
  S: complement(SPACE),
};

const CONTROL_ESCAPES: Readonly<Record<string, number>> = { t: 9, n: 10, v: 11, f: 12, r: 13, '0': 0 };

class Parser {
  #pos = 0;

  constructor(private readonly src: string) {}

  pattern(): Alternation {
    return this.alternation();
  }

  private peek(offset = 0): string | undefined {
    return this.src[this.#pos + offset];
  }

  private alternation(): Alternation {
    const branches: RegexNode[][] = [this.sequence()];
    while (this.peek() === '|') {
      this.#pos++;
      branches.push(this.sequence());
    }
    return branches;
  }

  private sequence(): RegexNode[] {
    const terms: RegexNode[] = [];
    while (this.#pos < this.src.length && this.peek() !== '|' && this.peek() !== ')') {
      const start = this.#pos;
      const atom = this.atom();
      terms.push(this.quantified(atom, start));
    }
    return terms;
  }

  private quantified(atom: RegexNode, start: number): RegexNode {
    const ch = this.peek();
    let min: number;
    let max: number;
    if (ch === '*' || ch === '+' || ch === '?') {
      this.#pos++;
      min = ch === '+' ? 1 : 0;
      max = ch === '?' ? 1 : Number.POSITIVE_INFINITY;
    } else if (ch === '{') {
      const match = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.#pos));
      if (!match) return atom;
      this.#pos += match[0].length;
      min = Number(match[1]);
      max = match[2] === undefined ? min : match[3] ? Number(match[3]) : Number.POSITIVE_INFINITY;
    } else {
      return atom;
    }
    if (this.peek() === '?') this.#pos++;
    return { kind: 'repeat', min, max, body: atom, start, end: this.#pos };
  }

  private atom(): RegexNode {
    const ch = this.src.codePointAt(this.#pos)!;
    const text = String.fromCodePoint(ch);
    this.#pos += text.length;
    switch (text) {
      case '^':
      case '$':
        return { kind: 'assertion' };
      case '.':
        return { kind: 'char', set: DOT };
      case '(':
        return this.group();
      case '[':
        return { kind: 'char', set: this.characterClass() };
      case '\\':
        return this.escape();
      default:
        return { kind: 'char', set: single(ch) };
    }
  }

  private group(): RegexNode {
    const start = this.#pos - 1;
    let lookaround = false;
    if (this.peek() === '?') {
      const next = this.peek(1);
      if (next === ':') this.#pos += 2;
      else if (next === '=' || next === '!') {
        this.#pos += 2;
        lookaround = true;
      } else if (next === '<' && (this.peek(2) === '=' || this.peek(2) === '!')) {
        this.#pos += 3;
        lookaround = true;
      } else {
        this.#pos = this.src.indexOf('>', this.#pos) + 1;
      }
    }
    const body = this.alternation();
    this.#pos++;
    return lookaround ? { kind: 'lookaround', body } : { kind: 'group', body, start, end: this.#pos };
  }

  private escape(): RegexNode {
    const ch = this.peek()!;
    if (ch === 'b' || ch === 'B') {
      this.#pos++;
      return { kind: 'assertion' };
    }
    if (/[1-9]/.test(ch) || (ch === 'k' && this.peek(1) === '<')) {
      return { kind: 'backreference' };
    }
    return { kind: 'char', set: this.escapedSet(false) };
  }

  /** The set of one escape after its backslash; inside a class `\b` is a backspace. */
  private escapedSet(inClass: boolean): CharSet {
    const ch = this.src[this.#pos++]!;
    const classSet = CLASS_ESCAPES[ch];
    if (classSet) return classSet;
    const control = CONTROL_ESCAPES[ch];
    if (control !== undefined) return single(control);
    if (ch === 'b' && inClass) return single(8);
    if (ch === 'p' || ch === 'P') {
      this.#pos = this.src.indexOf('}', this.#pos) + 1;
      return ANY;
    }
    if (ch === 'c') return single(this.src.charCodeAt(this.#pos++) % 32);
    if (ch === 'x') return single(this.hex(2));
    if (ch === 'u') {
      if (this.peek() === '{') {
        const close = this.src.indexOf('}', this.#pos);
        const value = Number.parseInt(this.src.slice(this.#pos + 1, close), 16);
        this.#pos = close + 1;
        return single(value);
      }
      return single(this.hex(4));
    }
    const cp = this.src.codePointAt(this.#pos - 1)!;
    this.#pos += String.fromCodePoint(cp).length - 1;
    return single(cp);
  }

  private hex(digits: number): number {
    const value = Number.parseInt(this.src.slice(this.#pos, this.#pos + digits), 16);
    this.#pos += digits;
    return value;
  }

  private characterClass(): CharSet {
    const negated = this.peek() === '^';
    if (negated) this.#pos++;
    const parts: CharSet[] = [];
    while (this.peek() !== ']') {
      const from = this.classAtom();
      if (this.peek() === '-' && this.peek(1) !== ']' && isSingle(from)) {
        this.#pos++;
        const to = this.classAtom();
        if (isSingle(to)) {
          parts.push(charSet([[from[0]![0], to[0]![0]]]));
          continue;
        }
        parts.push(from, single(0x2d), to);
        continue;
      }
      parts.push(from);
    }
    this.#pos++;
    const set = union(...parts);
    return negated ? complement(set) : set;
  }

  private classAtom(): CharSet {
    if (this.peek() === '\\') {
      this.#pos++;
      return this.escapedSet(true);
    }
    const cp = this.src.codePointAt(this.#pos)!;
    this.#pos += String.fromCodePoint(cp).length;
    return single(cp);
  }
}

function isSingle(set: CharSet): boolean {
  return set.length === 1 && set[0]![0] === set[0]![1];
}
