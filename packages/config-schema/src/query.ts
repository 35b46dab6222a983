// Evaluates a conditional-routing query against request metadata and params (pure; used per request).
import { type ConfigRegex, compileRegex, MAX_REGEX_SUBJECT_LENGTH } from './safe-regex.js';
import type { ConditionContext, ConditionQuery, FieldCondition, QueryValue } from './types.js';

/**
 * True when every entry of `query` holds. A missing field matches only `$ne` and `$nin`; values of
 * different types never compare, except that a decimal string (metadata arrives as strings) is read
 * as a number when the operand is a number. `$regex` never matches a string longer than
 * MAX_REGEX_SUBJECT_LENGTH. The query must come from a validated config.
 */
export function evaluateCondition(query: ConditionQuery, context: ConditionContext): boolean {
  for (const [key, condition] of Object.entries(query)) {
    if (condition === undefined) continue;
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(condition)) return false;
      const queries = condition as readonly ConditionQuery[];
      const holds =
        key === '$and'
          ? queries.every((q) => evaluateCondition(q, context))
          : queries.some((q) => evaluateCondition(q, context));
      if (!holds) return false;
    } else if (!matchField(lookup(key, context), condition as FieldCondition | QueryValue)) {
      return false;
    }
  }
  return true;
}

function lookup(field: string, context: ConditionContext): unknown {
  if (field.startsWith('metadata.')) {
    const key = field.slice('metadata.'.length);
    return Object.hasOwn(context.metadata, key) ? context.metadata[key] : undefined;
  }
  if (!field.startsWith('params.')) return undefined;
  let current: unknown = context.params;
  for (const segment of field.slice('params.'.length).split('.')) {
    if (Array.isArray(current) && /^\d+$/.test(segment)) current = current[Number(segment)];
    else if (typeof current === 'object' && current !== null && Object.hasOwn(current, segment)) {
      current = (current as Record<string, unknown>)[segment];
    } else return undefined;
  }
  return current;
}

function matchField(value: unknown, condition: FieldCondition | QueryValue): boolean {
  if (condition === null || typeof condition !== 'object') return equals(value, condition);
  for (const [op, operand] of Object.entries(condition)) {
    if (operand === undefined) continue;
    if (!applyOperator(op, value, operand)) return false;
  }
  return true;
}

function applyOperator(op: string, value: unknown, operand: unknown): boolean {
  switch (op) {
    case '$eq':
      return equals(value, operand);
    case '$ne':
      return !equals(value, operand);
    case '$gt':
      return (compare(value, operand) ?? 0) > 0;
    case '$gte':
      return (compare(value, operand) ?? -1) >= 0;
    case '$lt':
      return (compare(value, operand) ?? 0) < 0;
    case '$lte':
      return (compare(value, operand) ?? 1) <= 0;
    case '$in':
      return Array.isArray(operand) && operand.some((o) => equals(value, o));
    case '$nin':
      return !(Array.isArray(operand) && operand.some((o) => equals(value, o)));
    case '$regex':
      return (
        typeof value === 'string' &&
        value.length <= MAX_REGEX_SUBJECT_LENGTH &&
        typeof operand === 'string' &&
        regexFor(operand).test(value)
      );
    default:
      return false;
  }
}

const DECIMAL = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  return typeof value === 'string' && DECIMAL.test(value) ? Number(value) : undefined;
}

function equals(value: unknown, operand: unknown): boolean {
  if (value === operand) return true;
  return typeof operand === 'number' && typeof value === 'string' && asNumber(value) === operand;
}

/** Sign of value - operand, or undefined when they do not compare. */
function compare(value: unknown, operand: unknown): number | undefined {
  if (typeof operand === 'number') {
    const n = asNumber(value);
    return n === undefined ? undefined : Math.sign(n - operand);
  }
  if (typeof operand === 'string' && typeof value === 'string') {
    return value < operand ? -1 : value > operand ? 1 : 0;
  }
  return undefined;
}

const MAX_CACHED_REGEXES = 256;
const regexes = new Map<string, ConfigRegex>();

function regexFor(source: string): ConfigRegex {
  let regex = regexes.get(source);
  if (!regex) {
    if (regexes.size >= MAX_CACHED_REGEXES) regexes.clear();
    regex = compileRegex(source);
    regexes.set(source, regex);
  }
  return regex;
}
