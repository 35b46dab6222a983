// A JSON Schema subset for the `json_schema` check, without a dependency. Supported keywords are
// listed in docs/guardrails.md; any other keyword is ignored. Messages name paths, never values.
import { checkRegex, compileRegex } from '@aigw/config-schema';
import type { RegexRunner } from './regex-budget.js';

export interface SchemaError {
  /** JSON Pointer to the offending value ('' is the whole document). */
  readonly path: string;
  readonly message: string;
}

type Schema = Readonly<Record<string, unknown>>;

/** The config allows schemas 32 levels deep; deeper ones cannot come from a valid config. */
const MAX_DEPTH = 64;
const patterns = new Map<string, RegExp>();

/** Errors of `value` against `schema`, at most `limit` of them (empty: valid). */
export function validateJsonSchema(
  value: unknown,
  schema: unknown,
  regex: RegexRunner,
  limit = 10,
): SchemaError[] {
  const errors: SchemaError[] = [];
  const report = (path: string, message: string): void => {
    if (errors.length < limit) errors.push({ path, message });
  };
  visit(value, schema, '', 0, { regex, report, full: () => errors.length >= limit });
  return errors;
}

interface Walk {
  readonly regex: RegexRunner;
  readonly report: (path: string, message: string) => void;
  readonly full: () => boolean;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const pointer = (path: string, key: string | number): string =>
  `${path}/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`;

function visit(value: unknown, schema: unknown, path: string, depth: number, walk: Walk): void {
  if (walk.full() || !isObject(schema)) {
    if (schema === false) walk.report(path, 'no value is allowed here');
    return;
  }
  if (depth > MAX_DEPTH) throw new Error(`the schema nests deeper than ${MAX_DEPTH} levels`);
  if (!typeMatches(value, schema.type)) {
    walk.report(path, `must be of type ${[schema.type].flat().join(' or ')}, got ${typeName(value)}`);
    return;
  }
  if ('const' in schema && !jsonEqual(value, schema.const)) walk.report(path, 'must equal the schema const');
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => jsonEqual(value, option))) {
    walk.report(path, 'must be one of the schema enum values');
  }
  if (typeof value === 'number') checkNumber(value, schema, path, walk);
  else if (typeof value === 'string') checkString(value, schema, path, walk);
  else if (Array.isArray(value)) checkArray(value, schema, path, depth, walk);
  else if (isObject(value)) checkObject(value, schema, path, depth, walk);
}

function checkNumber(value: number, schema: Schema, path: string, walk: Walk): void {
  const bound = (key: string, fails: (limit: number) => boolean, words: string): void => {
    const limit = schema[key];
    if (typeof limit === 'number' && fails(limit)) walk.report(path, `must be ${words} ${limit}`);
  };
  bound('minimum', (l) => value < l, 'at least');
  bound('maximum', (l) => value > l, 'at most');
  bound('exclusiveMinimum', (l) => value <= l, 'greater than');
  bound('exclusiveMaximum', (l) => value >= l, 'less than');
}

function checkString(value: string, schema: Schema, path: string, walk: Walk): void {
  const length = [...value].length;
  if (typeof schema.minLength === 'number' && length < schema.minLength) {
    walk.report(path, `must be at least ${schema.minLength} characters long`);
  }
  if (typeof schema.maxLength === 'number' && length > schema.maxLength) {
    walk.report(path, `must be at most ${schema.maxLength} characters long`);
  }
  if (typeof schema.pattern === 'string' && !walk.regex.test(compiled(schema.pattern), value)) {
    walk.report(path, 'must match the schema pattern');
  }
}

function checkArray(
  value: readonly unknown[],
  schema: Schema,
  path: string,
  depth: number,
  walk: Walk,
): void {
  if (typeof schema.minItems === 'number' && value.length < schema.minItems) {
    walk.report(path, `must have at least ${schema.minItems} items`);
  }
  if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) {
    walk.report(path, `must have at most ${schema.maxItems} items`);
  }
  if (isObject(schema.items) || typeof schema.items === 'boolean') {
    for (const [i, item] of value.entries()) visit(item, schema.items, pointer(path, i), depth + 1, walk);
  }
}

function checkObject(
  value: Readonly<Record<string, unknown>>,
  schema: Schema,
  path: string,
  depth: number,
  walk: Walk,
): void {
  if (Array.isArray(schema.required)) {
    for (const key of schema.required) {
      if (typeof key === 'string' && !Object.hasOwn(value, key)) {
        walk.report(pointer(path, key), 'is required');
      }
    }
  }
  const properties = isObject(schema.properties) ? schema.properties : {};
  for (const [key, item] of Object.entries(value)) {
    if (Object.hasOwn(properties, key)) {
      visit(item, properties[key], pointer(path, key), depth + 1, walk);
    } else if (schema.additionalProperties === false) {
      walk.report(pointer(path, key), 'is not allowed (additionalProperties is false)');
    } else if (isObject(schema.additionalProperties)) {
      visit(item, schema.additionalProperties, pointer(path, key), depth + 1, walk);
    }
  }
}

function typeMatches(value: unknown, type: unknown): boolean {
  if (type === undefined) return true;
  const types = Array.isArray(type) ? type : [type];
  return types.some((t) => t === typeName(value) || (t === 'number' && typeName(value) === 'integer'));
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Equality of JSON values: objects by keys, whatever their order. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length &&
    keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]))
  );
}

/** Schema patterns were not checked by the config package (a schema is opaque JSON there). */
function compiled(pattern: string): RegExp {
  let re = patterns.get(pattern);
  if (re) return re;
  const verdict = checkRegex(pattern);
  if (!verdict.safe) throw new Error(`the schema pattern is refused: it ${verdict.message}`);
  re = compileRegex(pattern);
  if (patterns.size >= 256) patterns.clear();
  patterns.set(pattern, re);
  return re;
}
