// Config regular expressions (`$regex`, `regex_match`, JSON Schema `pattern`): RE2 syntax, run by
// re2js, a linear-time engine (no backtracking), so no pattern can backtrack catastrophically. The
// check refuses what RE2 cannot run and bounds the size of what it can (see docs/config.md).
import { RE2JS } from 're2js';

export const MAX_REGEX_LENGTH = 512;
/** Longer strings never match a config `$regex`: bounds what one routing condition costs. */
export const MAX_REGEX_SUBJECT_LENGTH = 1024;
/**
 * RE2 matches in time proportional to the text length times the compiled program size; when its
 * DFA gives up (big counted repetitions), each character costs up to one step per instruction.
 * 1000 instructions keep a 1024-character `$regex` subject to tens of milliseconds at worst, and let
 * everyday patterns through (`sk-[A-Za-z0-9]{20,64}` is 113, `[\w.-]{1,64}@[\w.-]{1,255}` 639).
 */
export const MAX_REGEX_PROGRAM_SIZE = 1000;

export type RegexRejection = 'too_long' | 'syntax' | 'needs_backtracking' | 'too_large';

export type RegexVerdict =
  | { readonly safe: true }
  | { readonly safe: false; readonly reason: RegexRejection; readonly message: string };

/** A compiled config regex: `test` searches (unanchored) like `RegExp.prototype.test`. */
export interface ConfigRegex {
  readonly source: string;
  test(subject: string): boolean;
}

/** RE2 refuses these JavaScript features because only a backtracking engine can run them. */
const BACKTRACKING_ONLY = /`\\[1-9k]|`\(\?<?[=!]/;

/**
 * A pattern is refused when it is longer than MAX_REGEX_LENGTH, is not valid RE2 syntax (backreferences
 * and lookarounds are not: they are what makes backtracking engines exponential), or compiles to more
 * than MAX_REGEX_PROGRAM_SIZE instructions.
 */
export function checkRegex(source: string): RegexVerdict {
  return compile(source).verdict;
}

export function isSafeRegex(source: string): boolean {
  return checkRegex(source).safe;
}

/** Compile a pattern that passed checkRegex (throws with the refusal otherwise). */
export function compileRegex(source: string): ConfigRegex {
  const { verdict, regex } = compile(source);
  if (!regex) throw new Error(`the pattern is refused: it ${(verdict as { message: string }).message}`);
  return regex;
}

function compile(source: string): { verdict: RegexVerdict; regex?: ConfigRegex } {
  if (source.length > MAX_REGEX_LENGTH) {
    return refuse('too_long', `is longer than ${MAX_REGEX_LENGTH} characters`);
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(source);
  } catch (err) {
    const detail = (err as Error).message.replace(/^error parsing regexp: /, '');
    return BACKTRACKING_ONLY.test(detail)
      ? refuse(
          'needs_backtracking',
          `uses a backreference or lookaround (${detail}), which only a backtracking engine can run`,
        )
      : refuse('syntax', `is not valid RE2 syntax: ${detail}`);
  }
  const size = programSize(re);
  if (size > MAX_REGEX_PROGRAM_SIZE) {
    return refuse(
      'too_large',
      `compiles to ${size} instructions, more than ${MAX_REGEX_PROGRAM_SIZE} (shrink its counted repetitions)`,
    );
  }
  return { verdict: { safe: true }, regex: { source, test: (subject) => re.test(subject) } };
}

/** re2js types its compiled program loosely; `numInst()` is the instruction count RE2 runs. */
function programSize(re: RE2JS): number {
  return (re.re2().prog as { numInst(): number }).numInst();
}

function refuse(reason: RegexRejection, message: string): { verdict: RegexVerdict } {
  return { verdict: { safe: false, reason, message } };
}
