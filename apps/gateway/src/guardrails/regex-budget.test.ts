import { MAX_REGEX_SUBJECT_LENGTH } from '@aigw/config-schema';
import { describe, expect, it } from 'vitest';
import { createRegexRunner, MAX_GUARDRAIL_REGEX_SUBJECT_LENGTH, RegexLimitError } from './regex-budget.js';

describe('createRegexRunner', () => {
  it('searches short and long subjects alike', () => {
    const runner = createRegexRunner();
    const long = `${'lorem ipsum '.repeat(2000)}sk-abcdefghijklmnopqrstuvwxyz`;
    expect(long.length).toBeGreaterThan(MAX_REGEX_SUBJECT_LENGTH);
    expect(runner.test(/sk-[a-z]{20,}/u, long)).toBe(true);
    expect(runner.test(/sk-[0-9]{20,}/u, long)).toBe(false);
    expect(runner.test(/^hello$/u, 'hello')).toBe(true);
  });

  it('ignores a global regex position left by an earlier search', () => {
    const re = /b/gu;
    re.lastIndex = 5;
    expect(createRegexRunner().test(re, 'ab')).toBe(true);
  });

  it('refuses subjects past the guardrail limit', () => {
    const runner = createRegexRunner();
    expect(() => runner.test(/a/u, 'a'.repeat(MAX_GUARDRAIL_REGEX_SUBJECT_LENGTH + 1))).toThrow(
      RegexLimitError,
    );
    expect(runner.test(/a/u, 'a'.repeat(MAX_GUARDRAIL_REGEX_SUBJECT_LENGTH))).toBe(true);
  });

  it('interrupts a quadratic search when the budget runs out, then refuses further searches', () => {
    // `a*b` passes the config check but retries from every position over a run of `a`.
    const runner = createRegexRunner(20);
    const subject = 'a'.repeat(MAX_GUARDRAIL_REGEX_SUBJECT_LENGTH - 1);
    expect(() => runner.test(/a*b/u, subject)).toThrow(/budget/);
    expect(() => runner.test(/a/u, 'a')).toThrow(RegexLimitError);
  });

  it('gives each runner its own budget', () => {
    const spent = createRegexRunner(5);
    expect(() => spent.test(/a*b/u, 'a'.repeat(60_000))).toThrow(RegexLimitError);
    expect(createRegexRunner(5).test(/a/u, 'a')).toBe(true);
  });
});
