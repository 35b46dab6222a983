// Validates a node's `strategy`: its mode and the fields each mode takes (status codes, conditions).
import { z } from 'zod';
import type { IssueSink, Segment } from './issues.js';
import { parseQuery } from './query.schema.js';
import { LIMITS, statusCodes, targetName } from './settings.schema.js';
import type { ConditionQuery, StrategyMode } from './types.js';
import { validateWith } from './zod-issues.js';

export const STRATEGY_MODES = ['single', 'fallback', 'loadbalance', 'conditional'] as const;

/** A strategy before its target names are resolved. */
export interface RawStrategy {
  readonly mode: StrategyMode;
  readonly on_status_codes?: readonly number[];
  readonly conditions?: readonly { readonly query: ConditionQuery; readonly name: string }[];
  readonly default?: string;
}

const strategyShape = z.strictObject({
  mode: z.enum(STRATEGY_MODES),
  on_status_codes: statusCodes.optional(),
  conditions: z.array(z.unknown()).min(1).max(LIMITS.maxConditions).optional(),
  default: targetName.optional(),
});

// biome-ignore lint/suspicious/noThenProperty: `then` is the config field's name (Portkey's shape); a schema, never awaited.
const conditionShape = z.strictObject({ query: z.unknown(), then: targetName });

/** `at` is the strategy's own path (`config.strategy`). */
export function parseStrategy(
  value: unknown,
  at: readonly Segment[],
  sink: IssueSink,
): RawStrategy | undefined {
  const raw = validateWith(strategyShape, value, at, sink);
  if (!raw) return undefined;
  const before = sink.size;
  if (raw.on_status_codes && raw.mode !== 'fallback') {
    sink.add([...at, 'on_status_codes'], 'unexpected_field', 'applies only to mode "fallback"');
  }
  if (raw.mode !== 'conditional') {
    for (const key of ['conditions', 'default'] as const) {
      if (raw[key] !== undefined)
        sink.add([...at, key], 'unexpected_field', 'applies only to mode "conditional"');
    }
    return sink.size === before
      ? { mode: raw.mode, ...(raw.on_status_codes && { on_status_codes: raw.on_status_codes }) }
      : undefined;
  }
  if (!raw.conditions) {
    sink.add([...at, 'conditions'], 'required', 'is required for mode "conditional"');
    return undefined;
  }
  const conditions: { query: ConditionQuery; name: string }[] = [];
  raw.conditions.forEach((item, i) => {
    const where = [...at, 'conditions', i];
    const condition = validateWith(conditionShape, item, where, sink);
    if (!condition) return;
    if (condition.query === undefined) {
      sink.add([...where, 'query'], 'required', 'is required');
      return;
    }
    const query = parseQuery(condition.query, [...where, 'query'], sink);
    if (query) conditions.push({ query, name: condition.then });
  });
  if (sink.size !== before) return undefined;
  return { mode: 'conditional', conditions, ...(raw.default !== undefined && { default: raw.default }) };
}
