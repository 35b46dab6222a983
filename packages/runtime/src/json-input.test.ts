import { describe, expect, it } from 'vitest';
import { jsonDeeperThan, jsonInputProblem, MAX_JSON_DEPTH, toWellFormed } from './json-input.js';

const nested = (depth: number): unknown => JSON.parse('['.repeat(depth) + ']'.repeat(depth));

describe('jsonInputProblem', () => {
  it('accepts well-formed text, surrogate pairs included, up to the maximum depth', () => {
    expect(jsonInputProblem({ name: 'ops \u{1F600}', list: [1, 'a', null] })).toBeUndefined();
    expect(jsonInputProblem(nested(MAX_JSON_DEPTH))).toBeUndefined();
  });

  it('names the path of an unpaired surrogate in a value or a key', () => {
    expect(jsonInputProblem(JSON.parse('{"a":[1,"ops\\ud800"]}'))).toMatchObject({ path: 'body.a.1' });
    expect(jsonInputProblem(JSON.parse('{"a":{"\\udc00":1}}'))?.path).toBe('body.a.\udc00');
    expect(jsonInputProblem(JSON.parse('{"a":"\\ud800"}'))?.message).toMatch(/unpaired surrogate/);
  });

  it('refuses nesting beyond the maximum without overflowing the stack', () => {
    expect(jsonInputProblem(nested(MAX_JSON_DEPTH + 1))?.message).toMatch(
      `JSON nests deeper than ${MAX_JSON_DEPTH} levels`,
    );
    expect(jsonInputProblem(nested(100_000))?.message).toMatch(/nests deeper/);
  });
});

describe('jsonDeeperThan and toWellFormed', () => {
  it('measures depth iteratively', () => {
    expect(jsonDeeperThan(nested(3), 3)).toBe(false);
    expect(jsonDeeperThan(nested(4), 3)).toBe(true);
    expect(jsonDeeperThan('text', 0)).toBe(false);
    expect(jsonDeeperThan(nested(100_000))).toBe(true);
  });

  it('replaces unpaired surrogates only', () => {
    expect(toWellFormed('a\ud800b\udc00\u{1F600}')).toBe('a\ufffdb\ufffd\u{1F600}');
  });
});
