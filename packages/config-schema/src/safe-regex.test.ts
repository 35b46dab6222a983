// checkRegex / compileRegex: RE2 syntax run by a linear-time engine; what RE2 cannot run is refused,
// and the shapes that backtrack catastrophically in JavaScript are accepted and finish.
import { describe, expect, it } from 'vitest';
import {
  checkRegex,
  compileRegex,
  isSafeRegex,
  MAX_REGEX_LENGTH,
  MAX_REGEX_PROGRAM_SIZE,
  type RegexRejection,
} from './safe-regex.js';

const reasonOf = (source: string): RegexRejection | 'safe' => {
  const verdict = checkRegex(source);
  return verdict.safe ? 'safe' : verdict.reason;
};

describe('checkRegex', () => {
  it.each([
    ['(a)\\1', 'needs_backtracking'],
    ['(?<w>\\w)\\k<w>', 'needs_backtracking'],
    ['foo(?=bar)', 'needs_backtracking'],
    ['foo(?!bar)', 'needs_backtracking'],
    ['(?<=a)b', 'needs_backtracking'],
    ['(?<!a)b', 'needs_backtracking'],
    ['(', 'syntax'],
    ['*', 'syntax'],
    ['[z-a]', 'syntax'],
    ['\\q', 'syntax'],
    ['a{1001}', 'syntax'],
    ['a'.repeat(MAX_REGEX_LENGTH + 1), 'too_long'],
    ['[a-h]*a[a-h]{1000}z', 'too_large'],
    ['^[\\s\\S]{0,1000}$', 'too_large'],
  ] as const)('refuses %s (%s)', (source, reason) => {
    expect(reasonOf(source)).toBe(reason);
    expect(isSafeRegex(source)).toBe(false);
    expect(() => compileRegex(source)).toThrow(/the pattern is refused/);
  });

  it.each([
    '^gpt-4',
    '\\b(password|secret|token)\\b',
    '(cat|dog)+',
    '([a-z]+,)*[a-z]+',
    '(\\d+\\.){3}\\d+',
    '^[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}$',
    '-?\\d+(\\.\\d+)?',
    'https?://[a-z.]+/',
    '[^\\]]+',
    '\\p{L}+',
    '\\x{1F600}+',
    '^sk-[A-Za-z0-9]{20,}$',
    '(?i)^ignore (all|previous) instructions',
    '[\\w.-]{1,64}@[\\w.-]{1,255}',
    '.*',
    'a'.repeat(MAX_REGEX_LENGTH),
    // Refused by the old backtracking-shape heuristic; harmless to a linear-time engine.
    '(a+)+',
    '(a|a)*',
    '(.*a){20}',
    '.*foo.*bar',
    '^\\s*(.*?)\\s*$',
    '\\w+a\\w+',
  ])('accepts %s', (source) => {
    expect(checkRegex(source)).toEqual({ safe: true });
    expect(isSafeRegex(source)).toBe(true);
  });

  it('explains the refusal with what RE2 reports', () => {
    expect(checkRegex('[abc')).toEqual({
      safe: false,
      reason: 'syntax',
      message: 'is not valid RE2 syntax: missing closing ]: `[abc`',
    });
    expect(checkRegex('(x)\\1')).toEqual({
      safe: false,
      reason: 'needs_backtracking',
      message:
        'uses a backreference or lookaround (invalid escape sequence: `\\1`), which only a backtracking engine can run',
    });
    const large = checkRegex('x{999}y');
    expect(large.safe === false && large.message).toBe(
      `compiles to 1002 instructions, more than ${MAX_REGEX_PROGRAM_SIZE} (shrink its counted repetitions)`,
    );
  });
});

describe('compileRegex', () => {
  it('searches unanchored, with RE2 classes and inline flags', () => {
    expect(compileRegex('b+').test('abbbc')).toBe(true);
    expect(compileRegex('^b').test('abc')).toBe(false);
    expect(compileRegex('^\\x{1F600}$').test('😀')).toBe(true);
    expect(compileRegex('^.$').test('😀')).toBe(true);
    expect(compileRegex('(?i)secret').test('SECRET')).toBe(true);
    expect(compileRegex('a').source).toBe('a');
  });

  // Each of these takes exponential (or, for the last ones, quadratic) time in a backtracking engine
  // on these subjects: V8 would not finish `(a+)+$` on 64 KiB in a lifetime. Finishing at all is the test.
  const evil = `${'a'.repeat(64 * 1024)}!`;
  it.each([
    ['(a+)+$', evil, false],
    ['(a|a)*$', evil, true],
    ['(a|aa)+$', evil, false],
    ['(.*a){20}$', evil, false],
    ['^(([a-z])+.)+[A-Z]([a-z])+$', evil, false],
    ['(x+x+)+y', 'x'.repeat(64 * 1024), false],
    ['.*.*=.*', `${'x'.repeat(64 * 1024)}\n`, false],
    ['a*b', 'a'.repeat(64 * 1024), false],
  ] as const)('runs %s over 64 KiB in linear time', (source, subject, expected) => {
    expect(compileRegex(source).test(subject)).toBe(expected);
  });
});
