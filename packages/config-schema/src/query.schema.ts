// Validates conditional-routing queries and normalises them (a bare value becomes `{ $eq: value }`).
import { describeType, type IssueSink, isPlainObject, type Segment } from './issues.js';
import { checkRegex } from './safe-regex.js';
import { LIMITS } from './settings.schema.js';
import type { ConditionQuery, FieldCondition, QueryValue } from './types.js';

export const QUERY_OPERATORS = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$regex'] as const;
export const MAX_IN_VALUES = 100;

const METADATA_FIELD = /^metadata\..+$/s;
const PARAMS_FIELD = /^params(?:\.[^.]+)+$/;
const FIELD_HINT = 'use $and, $or, or a field "metadata.<key>" or "params.<path>"';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Validate `value` as a query at `at`; returns the normal form, or undefined after recording issues. */
export function parseQuery(
  value: unknown,
  at: readonly Segment[],
  sink: IssueSink,
  depth = 1,
): ConditionQuery | undefined {
  if (!isPlainObject(value)) {
    sink.add(at, 'invalid_type', `must be an object, got ${describeType(value)}`);
    return undefined;
  }
  const keys = Object.keys(value);
  if (keys.length === 0) {
    sink.add(at, 'invalid_query', 'must hold at least one condition');
    return undefined;
  }
  const before = sink.size;
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const where = [...at, key];
    const entry = value[key];
    if (key === '$and' || key === '$or') {
      out[key] = parseJunction(entry, where, sink, depth);
    } else if (key.startsWith('$')) {
      sink.add(where, 'invalid_query', `is not allowed at this level: ${FIELD_HINT}`);
    } else if (!METADATA_FIELD.test(key) && !PARAMS_FIELD.test(key)) {
      sink.add(where, 'invalid_query', `is not a field: ${FIELD_HINT}`);
    } else {
      out[key] = parseFieldCondition(entry, where, sink);
    }
  }
  return sink.size === before ? (out as ConditionQuery) : undefined;
}

function parseJunction(value: unknown, at: readonly Segment[], sink: IssueSink, depth: number): unknown {
  if (!Array.isArray(value) || value.length === 0) {
    sink.add(at, 'invalid_query', 'must be a non-empty array of queries');
    return undefined;
  }
  if (depth >= LIMITS.maxQueryDepth) {
    sink.add(at, 'invalid_query', `nests $and/$or deeper than ${LIMITS.maxQueryDepth} levels`);
    return undefined;
  }
  return value.map((item, i) => parseQuery(item, [...at, i], sink, depth + 1));
}

function isQueryValue(value: unknown): value is QueryValue {
  return (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}

function parseFieldCondition(
  value: unknown,
  at: readonly Segment[],
  sink: IssueSink,
): FieldCondition | undefined {
  if (isQueryValue(value)) return { $eq: value };
  if (!isPlainObject(value)) {
    sink.add(at, 'invalid_query', `must be a value or an object of operators, got ${describeType(value)}`);
    return undefined;
  }
  const operators = Object.keys(value);
  if (operators.length === 0) {
    sink.add(at, 'invalid_query', 'must hold at least one operator');
    return undefined;
  }
  const out: Mutable<FieldCondition> = {};
  for (const op of operators) {
    const operand = value[op];
    const where = [...at, op];
    switch (op) {
      case '$eq':
      case '$ne':
        if (isQueryValue(operand)) out[op] = operand;
        else
          sink.add(
            where,
            'invalid_query',
            `must be a string, number, boolean or null, got ${describeType(operand)}`,
          );
        break;
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte':
        if (typeof operand === 'string' || (typeof operand === 'number' && Number.isFinite(operand)))
          out[op] = operand;
        else sink.add(where, 'invalid_query', `must be a number or a string, got ${describeType(operand)}`);
        break;
      case '$in':
      case '$nin':
        if (
          Array.isArray(operand) &&
          operand.length > 0 &&
          operand.length <= MAX_IN_VALUES &&
          operand.every(isQueryValue)
        ) {
          out[op] = operand;
        } else {
          sink.add(
            where,
            'invalid_query',
            `must be an array of 1-${MAX_IN_VALUES} strings, numbers, booleans or nulls`,
          );
        }
        break;
      case '$regex':
        parseRegexOperand(operand, where, sink, out);
        break;
      default:
        sink.add(where, 'invalid_query', `is not an operator: use one of ${QUERY_OPERATORS.join(', ')}`);
    }
  }
  return out;
}

function parseRegexOperand(
  operand: unknown,
  at: readonly Segment[],
  sink: IssueSink,
  out: Mutable<FieldCondition>,
): void {
  if (typeof operand !== 'string') {
    sink.add(at, 'invalid_query', `must be a string, got ${describeType(operand)}`);
    return;
  }
  const verdict = checkRegex(operand);
  if (verdict.safe) out.$regex = operand;
  else sink.add(at, verdict.reason === 'syntax' ? 'invalid_regex' : 'unsafe_regex', verdict.message);
}
