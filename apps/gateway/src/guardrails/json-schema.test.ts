import { describe, expect, it } from 'vitest';
import { validateJsonSchema } from './json-schema.js';
import { createRegexRunner, MAX_GUARDRAIL_REGEX_SUBJECT_LENGTH, RegexLimitError } from './regex-budget.js';

const validate = (value: unknown, schema: unknown) => validateJsonSchema(value, schema, createRegexRunner());
const paths = (value: unknown, schema: unknown) => validate(value, schema).map((e) => e.path);

describe('validateJsonSchema', () => {
  it.each([
    ['string', 'x', 1],
    ['number', 1.5, 'x'],
    ['integer', 2, 2.5],
    ['boolean', false, 0],
    ['null', null, 0],
    ['object', {}, []],
    ['array', [], {}],
  ])('type %s', (type, good, bad) => {
    expect(validate(good, { type })).toEqual([]);
    expect(validate(bad, { type })).toHaveLength(1);
  });

  it('accepts an integer as a number and a list of types', () => {
    expect(validate(3, { type: 'number' })).toEqual([]);
    expect(validate(null, { type: ['string', 'null'] })).toEqual([]);
    expect(validate(1, { type: ['string', 'null'] })).toEqual([{ path: '', message: 'must be string,null' }]);
  });

  it('checks properties, required and additionalProperties, naming the member', () => {
    const schema = {
      type: 'object',
      properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } },
      required: ['name', 'age'],
      additionalProperties: false,
    };
    expect(validate({ name: 'a', age: 3 }, schema)).toEqual([]);
    expect(validate({ name: 1, age: -1, extra: true }, schema)).toEqual([
      { path: '/extra', message: 'is not allowed' },
      { path: '/name', message: 'must be string' },
      { path: '/age', message: 'must be >= 0' },
    ]);
    expect(validate({ age: 1 }, schema)).toEqual([{ path: '/name', message: 'is required' }]);
  });

  it('applies an additionalProperties schema to unlisted keys only', () => {
    const schema = { properties: { a: { type: 'string' } }, additionalProperties: { type: 'number' } };
    expect(validate({ a: 'x', b: 1 }, schema)).toEqual([]);
    expect(paths({ a: 'x', b: 'y' }, schema)).toEqual(['/b']);
  });

  it('checks items, minItems and maxItems', () => {
    const schema = { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 2 };
    expect(validate(['a'], schema)).toEqual([]);
    expect(paths(['a', 2], schema)).toEqual(['/1']);
    expect(validate([], schema)[0]?.message).toBe('must NOT have fewer than 1 items');
    expect(validate(['a', 'b', 'c'], schema)[0]?.message).toBe('must NOT have more than 2 items');
  });

  it('checks enum and const by JSON equality, whatever the key order', () => {
    expect(validate({ b: 1, a: [1] }, { const: { a: [1], b: 1 } })).toEqual([]);
    expect(validate({ a: [2] }, { const: { a: [1] } })).toEqual([
      { path: '', message: 'must be equal to constant' },
    ]);
    expect(validate('red', { enum: ['red', 'green'] })).toEqual([]);
    expect(validate('blue', { enum: ['red', 'green'] })).toHaveLength(1);
  });

  it('checks numeric bounds', () => {
    expect(validate(5, { minimum: 5, maximum: 5 })).toEqual([]);
    expect(validate(4, { minimum: 5 })[0]?.message).toBe('must be >= 5');
    expect(validate(6, { maximum: 5 })[0]?.message).toBe('must be <= 5');
    expect(validate(5, { exclusiveMinimum: 5 })).toHaveLength(1);
    expect(validate(5, { exclusiveMaximum: 5 })).toHaveLength(1);
  });

  it('checks string length in characters, not UTF-16 units', () => {
    expect(validate('😀😀', { maxLength: 2 })).toEqual([]);
    expect(validate('😀😀😀', { maxLength: 2 })).toHaveLength(1);
    expect(validate('a', { minLength: 2 })).toHaveLength(1);
  });

  it('supports boolean schemas', () => {
    expect(validate({ a: 1 }, { properties: { a: true } })).toEqual([]);
    expect(paths({ a: 1 }, { properties: { a: false } })).toEqual(['/a']);
  });

  it('escapes JSON Pointer segments and stops at the error limit', () => {
    expect(paths({ 'a/b~c': 1 }, { properties: { 'a/b~c': { type: 'string' } } })).toEqual(['/a~1b~0c']);
    const many = Array.from({ length: 50 }, (_, i) => i);
    expect(validate(many, { items: { type: 'string' } })).toHaveLength(10);
  });

  // The hand-written subset ignored these keywords, so every value passed them.
  it.each([
    ['anyOf', 5, { anyOf: [{ type: 'string' }, { type: 'boolean' }] }, 'must match a schema in anyOf'],
    ['oneOf', 'x', { oneOf: [{ type: 'number' }] }, 'must match exactly one schema in oneOf'],
    ['allOf', 3, { allOf: [{ minimum: 1 }, { maximum: 2 }] }, 'must be <= 2'],
    ['not', 'x', { not: { type: 'string' } }, 'must NOT be valid'],
    [
      'a local $ref',
      'x',
      { definitions: { n: { type: 'number' } }, $ref: '#/definitions/n' },
      'must be number',
    ],
    [
      'uniqueItems',
      [1, 1],
      { uniqueItems: true },
      'must NOT have duplicate items (items ## 0 and 1 are identical)',
    ],
    ['multipleOf', 7, { multipleOf: 2 }, 'must be multiple of 2'],
    [
      'if/then',
      { kind: 'a' },
      // biome-ignore lint/suspicious/noThenProperty: `then` is a JSON Schema keyword here.
      { if: { properties: { kind: { const: 'a' } } }, then: { required: ['x'] } },
      'is required',
    ],
    ['minProperties', {}, { minProperties: 1 }, 'must NOT have fewer than 1 properties'],
    [
      'patternProperties',
      { x1: 'a' },
      { patternProperties: { '^x\\d$': { type: 'number' } } },
      'must be number',
    ],
  ])('checks %s, which the old subset ignored', (_keyword, value, schema, message) => {
    expect(validate(value, schema).map((e) => e.message)).toContain(message);
  });

  it('reads a 2020-12 schema by its $schema (prefixItems)', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      prefixItems: [{ type: 'number' }, { type: 'number' }],
    };
    expect(validate([1, 2], schema)).toEqual([]);
    expect(validate([1, 'x'], schema)).toEqual([{ path: '/1', message: 'must be number' }]);
  });

  it('follows a recursive $ref to the root', () => {
    const tree = { type: 'array', items: { anyOf: [{ type: 'integer' }, { $ref: '#' }] } };
    expect(validate([1, [2, [3]]], tree)).toEqual([]);
    expect(paths([1, [2, ['x']]], tree)).toContain('/1/1/0');
  });

  it('throws, rather than answering, when recursion over absurdly deep JSON overflows the stack', () => {
    const deep = JSON.parse(`${'['.repeat(50_000)}${']'.repeat(50_000)}`);
    expect(() => validate(deep, { type: 'array', items: { $ref: '#' } })).toThrow(RangeError);
  });

  it('lets two schemas share an $id: ids are not registered across schemas', () => {
    expect(validate({}, { $id: 'https://example.com/s', type: 'object' })).toEqual([]);
    expect(validate({}, { $id: 'https://example.com/s', type: 'string' })).toHaveLength(1);
  });

  it.each([
    ['an unknown keyword', { formt: 'email' }, /unknown keyword: "formt"/],
    ['an unresolvable local $ref', { $ref: '#/nowhere' }, /can't resolve reference #\/nowhere/],
    ['a remote $ref (never fetched)', { $ref: 'https://example.com/s.json' }, /can't resolve reference/],
    ['an invalid keyword value', { minLength: -1 }, /schema is invalid: data\/minLength must be >= 0/],
    ['an unsupported draft', { $schema: 'http://json-schema.org/draft-04/schema#' }, /no schema with key/],
    ['a pattern RE2 cannot run', { pattern: '(a)\\1' }, /backreference/],
  ])('refuses %s', (_case, schema, message) => {
    expect(() => validate('x', schema)).toThrow(/the JSON schema is refused/);
    expect(() => validate('x', schema)).toThrow(message);
  });

  it('treats format as an annotation', () => {
    expect(validate('not an email', { type: 'string', format: 'email' })).toEqual([]);
  });
});

describe('validateJsonSchema patterns', () => {
  it('matches with RE2 and reports the schema pattern, not the value', () => {
    expect(validate('abc-123', { pattern: '^[a-z]+-\\d+$' })).toEqual([]);
    expect(validate('abc', { pattern: '^[a-z]+-\\d+$' })).toEqual([
      { path: '', message: 'must match pattern "^[a-z]+-\\d+$"' },
    ]);
  });

  it('finishes a catastrophic pattern in linear time', () => {
    const subject = `${'a'.repeat(MAX_GUARDRAIL_REGEX_SUBJECT_LENGTH - 1)}!`;
    expect(paths(subject, { pattern: '^(a+)+$' })).toEqual(['']);
    expect(
      paths({ k: subject }, { patternProperties: { '(a|aa)+$': true }, additionalProperties: false }),
    ).toEqual(['/k']);
  });

  it('charges pattern searches to the run regex budget and its subject limit', () => {
    const runner = createRegexRunner();
    const tooLong = 'a'.repeat(MAX_GUARDRAIL_REGEX_SUBJECT_LENGTH + 1);
    expect(() => validateJsonSchema(tooLong, { pattern: 'a' }, runner)).toThrow(RegexLimitError);
    let seed = 7;
    let mixed = '';
    for (let i = 0; i < 60_000; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      mixed += 'abcdefgh'[seed % 8];
    }
    const spent = createRegexRunner(5);
    expect(() => validateJsonSchema(`${mixed}z`, { pattern: '[a-h]*a[a-h]{900}z' }, spent)).toThrow(/budget/);
    expect(() => validateJsonSchema('a', { pattern: 'a' }, spent)).toThrow(RegexLimitError);
  });
});
