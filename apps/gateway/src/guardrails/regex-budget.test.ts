import { compileRegex, MAX_REGEX_SUBJECT_LENGTH } from '@aigw/config-schema';
import { describe, expect, it } from 'vitest';
import { createRegexRunner, MAX_GUARDRAIL_REGEX_SUBJECT_LENGTH, RegexLimitError } from './regex-budget.js';

const re = compileRegex;

/** 64 KiB of pseudo-random `a`-`h` (fixed seed): the RE2 DFA gives up on a big program over it. */
function mixed(length: number): string {
  let seed = 7;
  let text = '';
  for (let i = 0; i < length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    text += 'abcdefgh'[seed % 8];
  }
  return text;
}
/**
 * Under the program size limit, but one step per instruction and character: seconds over 64 KiB
 * (the subject must hold a `z`, or RE2 answers at once from the literal it requires).
 */
const BIG_PROGRAM = '[a-h]*a[a-h]{900}z';

describe('createRegexRunner', () => {
  it('searches short and long subjects alike', () => {
    const runner = createRegexRunner();
    const long = `${'lorem ipsum '.repeat(2000)}sk-abcdefghijklmnopqrstuvwxyz`;
    expect(long.length).toBeGreaterThan(MAX_REGEX_SUBJECT_LENGTH);
    expect(runner.test(re('sk-[a-z]{20,}'), long)).toBe(true);
    expect(runner.test(re('sk-[0-9]{20,}'), long)).toBe(false);
    expect(runner.test(re('^hello$'), 'hello')).toBe(true);
  });

  it('refuses subjects past the guardrail limit', () => {
    const runner = createRegexRunner();
    expect(() => runner.test(re('a'), 'a'.repeat(MAX_GUARDRAIL_REGEX_SUBJECT_LENGTH + 1))).toThrow(
      RegexLimitError,
    );
    expect(runner.test(re('a'), 'a'.repeat(MAX_GUARDRAIL_REGEX_SUBJECT_LENGTH))).toBe(true);
  });

  // A backtracking engine would never finish these; the linear-time one needs no interrupt for them.
  it.each([
    ['(a+)+$', `${'a'.repeat(MAX_GUARDRAIL_REGEX_SUBJECT_LENGTH - 1)}!`, false],
    ['(a|aa)+$', `${'a'.repeat(MAX_GUARDRAIL_REGEX_SUBJECT_LENGTH - 1)}!`, false],
    ['(.*a){20}$', `${'a'.repeat(MAX_GUARDRAIL_REGEX_SUBJECT_LENGTH - 1)}!`, false],
    ['a*b', 'a'.repeat(MAX_GUARDRAIL_REGEX_SUBJECT_LENGTH), false],
    ['(x+x+)+y', `${'x'.repeat(MAX_REGEX_SUBJECT_LENGTH)}`, false],
  ])('finishes %s on a catastrophic subject within the default budget', (pattern, subject, expected) => {
    expect(createRegexRunner().test(re(pattern), subject)).toBe(expected);
  });

  it('interrupts a search that outruns the budget, then refuses further searches', () => {
    const runner = createRegexRunner(20);
    expect(() => runner.test(re(BIG_PROGRAM), `${mixed(MAX_GUARDRAIL_REGEX_SUBJECT_LENGTH - 1)}z`)).toThrow(
      /budget/,
    );
    expect(() => runner.test(re('a'), 'a')).toThrow(RegexLimitError);
  });

  it('gives each runner its own budget', () => {
    const spent = createRegexRunner(5);
    expect(() => spent.test(re(BIG_PROGRAM), `${mixed(60_000)}z`)).toThrow(RegexLimitError);
    expect(createRegexRunner(5).test(re('a'), 'a')).toBe(true);
  });
});
