// isSafeRegex / checkRegex: the catastrophic shapes are refused, everyday patterns pass.
import { describe, expect, it } from 'vitest';
import {
  checkRegex,
  compileRegex,
  isSafeRegex,
  MAX_REGEX_LENGTH,
  type RegexRejection,
} from './safe-regex.js';

const reasonOf = (source: string): RegexRejection | 'safe' => {
  const verdict = checkRegex(source);
  return verdict.safe ? 'safe' : verdict.reason;
};

describe('checkRegex', () => {
  it.each([
    ['(a+)+', 'nested_quantifier'],
    ['(a*)*', 'nested_quantifier'],
    ['(a+)*b', 'nested_quantifier'],
    ['(.*a){20}', 'nested_quantifier'],
    ['(a?){30}a{30}', 'nested_quantifier'],
    ['^(([a-z])+.)+[A-Z]([a-z])+$', 'nested_quantifier'],
    ['(x+x+)+y', 'nested_quantifier'],
    ['(\\d+\\.\\d+)+', 'nested_quantifier'],
    ['(?:a{1,5}){2,}', 'nested_quantifier'],
    ['(?:(?=a*)b)+', 'nested_quantifier'],
    ['(a|a)*', 'overlapping_alternation'],
    ['(a|ab)+c', 'overlapping_alternation'],
    ['(\\w|\\d)+', 'overlapping_alternation'],
    ['(?:.|\\s)*', 'overlapping_alternation'],
    ['(a|)+', 'overlapping_alternation'],
    ['((a|a)b){2}', 'overlapping_alternation'],
    ['([a-c]|[b-d])*', 'overlapping_alternation'],
    ['.*foo.*bar', 'overlapping_repetitions'],
    ['a.*b.*c', 'overlapping_repetitions'],
    ['\\w+a\\w+', 'overlapping_repetitions'],
    ['^\\s*(.*?)\\s*$', 'overlapping_repetitions'],
    ['a+\\d*a+', 'overlapping_repetitions'],
    ['[ab]+\\w{2,}[ab]', 'overlapping_repetitions'],
    ['\\w{1,3}\\w{1,3}', 'overlapping_repetitions'],
    ['(\\w1{2,}|[ab]{2,})1*$', 'overlapping_repetitions'],
    ['(a)\\1', 'backreference'],
    ['(?<w>\\w)\\k<w>', 'backreference'],
    ['(', 'syntax'],
    ['*', 'syntax'],
    ['[z-a]', 'syntax'],
    ['\\q', 'syntax'],
    ['a'.repeat(MAX_REGEX_LENGTH + 1), 'too_long'],
  ] as const)('refuses %s (%s)', (source, reason) => {
    expect(reasonOf(source)).toBe(reason);
    expect(isSafeRegex(source)).toBe(false);
  });

  it.each([
    '^gpt-4',
    '\\b(password|secret|token)\\b',
    '(cat|dog)+',
    '(?:ab|cd)*',
    '([a-z]+,)*[a-z]+',
    '(\\d+\\.){3}\\d+',
    '(-?\\d+,)*',
    '(?:[a-z]+=[0-9]+;)*',
    '(a{2}){3}',
    '^[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}$',
    '^\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}$',
    '-?\\d+(\\.\\d+)?',
    '[a-z]+(,[a-z]+)*',
    '(?:\\w+\\s)*\\w+',
    '\\s*,\\s*',
    'foo.*bar',
    'https?://[a-z.]+/',
    '[^\\]]+',
    '\\p{L}+',
    '\\u{1F600}+',
    '^sk-[A-Za-z0-9]{20,}$',
    '(?:[^a]|a)+',
    '.*',
    'a'.repeat(MAX_REGEX_LENGTH),
  ])('accepts %s', (source) => {
    expect(checkRegex(source)).toEqual({ safe: true });
    expect(isSafeRegex(source)).toBe(true);
  });

  it('quotes the offending part and explains the refusal', () => {
    expect(checkRegex('^x(a+)+$')).toEqual({
      safe: false,
      reason: 'nested_quantifier',
      message: 'repeats a variable-length repetition in `(a+)+`, which can backtrack catastrophically',
    });
    const syntax = checkRegex('[abc');
    expect(syntax.safe === false && syntax.message).toBe('does not compile: Unterminated character class');
  });

  it('compiles with the u flag, as the check does', () => {
    expect(compileRegex('^\\u{1F600}$').test('😀')).toBe(true);
    expect(compileRegex('a').flags).toBe('u');
  });
});
