import { describe, expect, it } from 'vitest';
import { jsonEqual, validateJsonSchema } from './json-schema.js';
import { createRegexRunner } from './regex-budget.js';

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
    expect(validate(1, { type: ['string', 'null'] })[0]?.message).toBe(
      'must be of type string or null, got integer',
    );
  });

  it('checks properties, required and additionalProperties', () => {
    const schema = {
      type: 'object',
      properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } },
      required: ['name', 'age'],
      additionalProperties: false,
    };
    expect(validate({ name: 'a', age: 3 }, schema)).toEqual([]);
    expect(paths({ name: 1, age: -1, extra: true }, schema)).toEqual(['/name', '/age', '/extra']);
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
    expect(validate([], schema)[0]?.message).toBe('must have at least 1 items');
    expect(validate(['a', 'b', 'c'], schema)[0]?.message).toBe('must have at most 2 items');
  });

  it('checks enum and const by JSON equality', () => {
    expect(validate({ b: 1, a: [1] }, { const: { a: [1], b: 1 } })).toEqual([]);
    expect(validate({ a: [2] }, { const: { a: [1] } })).toHaveLength(1);
    expect(validate('red', { enum: ['red', 'green'] })).toEqual([]);
    expect(validate('blue', { enum: ['red', 'green'] })).toHaveLength(1);
  });

  it('checks numeric bounds', () => {
    expect(validate(5, { minimum: 5, maximum: 5 })).toEqual([]);
    expect(validate(4, { minimum: 5 })[0]?.message).toBe('must be at least 5');
    expect(validate(6, { maximum: 5 })[0]?.message).toBe('must be at most 5');
    expect(validate(5, { exclusiveMinimum: 5 })).toHaveLength(1);
    expect(validate(5, { exclusiveMaximum: 5 })).toHaveLength(1);
  });

  it('checks string length in characters, not UTF-16 units', () => {
    expect(validate('😀😀', { maxLength: 2 })).toEqual([]);
    expect(validate('😀😀😀', { maxLength: 2 })).toHaveLength(1);
    expect(validate('a', { minLength: 2 })).toHaveLength(1);
  });

  it('checks pattern with the safe regex rules', () => {
    expect(validate('abc-123', { pattern: '^[a-z]+-\\d+$' })).toEqual([]);
    expect(validate('abc', { pattern: '^[a-z]+-\\d+$' })).toEqual([
      { path: '', message: 'must match the schema pattern' },
    ]);
    expect(() => validate('aaa', { pattern: '(a+)+$' })).toThrow(/schema pattern is refused/);
  });

  it('supports boolean schemas', () => {
    expect(validate({ a: 1 }, { properties: { a: true } })).toEqual([]);
    expect(paths({ a: 1 }, { properties: { a: false } })).toEqual(['/a']);
  });

  it('ignores keywords outside the subset', () => {
    expect(validate('x', { format: 'email', $ref: '#/nowhere', oneOf: [{ type: 'number' }] })).toEqual([]);
  });

  it('escapes JSON Pointer segments and stops at the error limit', () => {
    expect(paths({ 'a/b~c': 1 }, { properties: { 'a/b~c': { type: 'string' } } })).toEqual(['/a~1b~0c']);
    const many = Array.from({ length: 50 }, (_, i) => i);
    expect(validate(many, { items: { type: 'string' } })).toHaveLength(10);
  });
});

describe('jsonEqual', () => {
  it('compares JSON values deeply', () => {
    expect(jsonEqual([1, { a: null }], [1, { a: null }])).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual(1, '1')).toBe(false);
  });
});
