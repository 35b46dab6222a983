// Opaque JSON values (override_params, a JSON schema): bounded in depth, checked and copied without recursion risk.
import { z } from 'zod';
import { describeType, isPlainObject } from './issues.js';

/** Deeper values are refused: they would overflow the stack of whatever serialises them later. */
export const MAX_JSON_DEPTH = 32;

/** Why `value` is not plain JSON data of acceptable depth, or undefined. Iterative: safe on any input. */
export function jsonDataProblem(value: unknown): string | undefined {
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (pending.length > 0) {
    const { value: current, depth } = pending.pop()!;
    if (current === null || typeof current === 'string' || typeof current === 'boolean') continue;
    if (typeof current === 'number') {
      if (Number.isFinite(current)) continue;
      return 'must hold finite numbers only';
    }
    const isArray = Array.isArray(current);
    if (!isArray && !(isPlainObject(current) && isPlainPrototype(current))) {
      const name = isPlainObject(current)
        ? (current.constructor as { name?: string } | undefined)?.name
        : undefined;
      return `must hold JSON data only, found ${name ? `a ${name}` : describeType(current)}`;
    }
    if (depth >= MAX_JSON_DEPTH) return `nests deeper than ${MAX_JSON_DEPTH} levels`;
    const record = current as Record<string, unknown>;
    if (!isArray && Object.hasOwn(record, '__proto__')) return 'must not use the key "__proto__"';
    for (const inner of Object.values(record)) pending.push({ value: inner, depth: depth + 1 });
  }
  return undefined;
}

function isPlainPrototype(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A copy, so that freezing the result never freezes the caller's objects (depth already bounded). */
function copy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copy);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, copy(inner)]));
  }
  return value;
}

/** A JSON object whose values are any JSON data, copied. */
export const jsonObject = z
  .record(z.string(), z.unknown())
  .superRefine((value, ctx) => {
    const problem = jsonDataProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, params: { code: 'invalid_value' } });
  })
  .transform((value) => copy(value) as Record<string, unknown>);
