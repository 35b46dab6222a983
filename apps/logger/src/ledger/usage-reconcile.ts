// Writes the ledger's totals of current periods into the gateway's Redis usage counters as a
// monotonic max: a counter lower than the ledger (Redis lost its data, or restarted empty) is raised
// to it; a higher one (charges the logger has not seen yet) is left alone. Rows charged from the
// gateway's usage_charges name their counters (policies per group, every period kind); rows derived
// the old way get the entity keys the gateway uses (docs/limits.md "Budget counters for the
// logger's reconciliation").
import { entityBudgetKey } from '@aigw/proto';
import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { LogsDatabase } from '../db/schema.js';
import { FOREVER } from './usage-ledger.js';

/**
 * Raises field `u` of the budget hash only, leaving the gateway's reservations (`r`) and alert
 * marks alone, and its TTL; a key it creates expires at ARGV[2] (0: never, for limits that never
 * reset). Returns 1 when the counter was raised.
 */
const RAISE_TO = `
local current = tonumber(redis.call('HGET', KEYS[1], 'u') or '0') or 0
local target = tonumber(ARGV[1])
if current < target then
  local existed = redis.call('EXISTS', KEYS[1])
  redis.call('HSET', KEYS[1], 'u', ARGV[1])
  if existed == 0 and tonumber(ARGV[2]) > 0 then redis.call('PEXPIREAT', KEYS[1], ARGV[2]) end
  return 1
end
return 0`;

/** The gateway's budget keys expire a day after their period ends. */
const EXPIRY_GRACE_MS = 86_400_000;

export type UsageMeasure = 'cost' | 'tokens';

/** The gateway's budget counter of a ledger row (the key format is the contract in @aigw/proto). */
export function usageCounterKey(
  entry: { organisation_id: string; entity_kind: string; entity_id: string; period_start: Date },
  measure: UsageMeasure,
): string {
  return entityBudgetKey(
    entry.organisation_id,
    entry.entity_kind,
    entry.entity_id,
    measure,
    entry.period_start.getTime(),
  );
}

type LedgerRow = {
  organisation_id: string;
  entity_kind: string;
  entity_id: string;
  group_value: string;
  period_start: Date;
  cost_micros: string;
  tokens: string;
  cost_counter_key: string | null;
  tokens_counter_key: string | null;
};

/** Entity kinds whose own limits the gateway keys as `<kind>:<id>` (usageCounterKey). */
const ENTITY_KINDS = new Set(['api_key', 'workspace', 'provider', 'integration', 'virtual_key']);

/** The counters of one ledger row and the value each must reach. */
function counters(row: LedgerRow): [string, string][] {
  if (row.cost_counter_key !== null || row.tokens_counter_key !== null) {
    const out: [string, string][] = [];
    if (row.cost_counter_key) out.push([row.cost_counter_key, row.cost_micros]);
    if (row.tokens_counter_key) out.push([row.tokens_counter_key, row.tokens]);
    return out;
  }
  // Derived rows (events that did not report charges): both measures of the entity's own limits.
  if (row.group_value !== '' || !ENTITY_KINDS.has(row.entity_kind)) return [];
  return [
    [usageCounterKey(row, 'cost'), row.cost_micros],
    [usageCounterKey(row, 'tokens'), row.tokens],
  ];
}

export interface ReconcileResult {
  readonly entries: number;
  readonly raised: number;
}

/** Raises the Redis counters of every ledger period still open at `nowMs`. */
export async function reconcileUsage(
  db: Kysely<LogsDatabase>,
  redis: Redis,
  options: { readonly nowMs: number; readonly pageSize?: number },
): Promise<ReconcileResult> {
  const now = new Date(options.nowMs);
  const pageSize = options.pageSize ?? 1000;
  let entries = 0;
  let raised = 0;
  let after: { entity_kind: string; entity_id: string; group_value: string; period_start: Date } | undefined;
  // Periods without an end (never resets, from 0 or from a usage reset) keep their key.
  const forever = FOREVER.end.getTime();
  for (;;) {
    let query = db
      .selectFrom('usage_ledger')
      .select([
        'organisation_id',
        'entity_kind',
        'entity_id',
        'group_value',
        'period_start',
        'period_end',
        'cost_micros',
        'tokens',
        'cost_counter_key',
        'tokens_counter_key',
      ])
      .where('period_start', '<=', now)
      .where('period_end', '>', now)
      .orderBy('entity_kind')
      .orderBy('entity_id')
      .orderBy('group_value')
      .orderBy('period_start')
      .limit(pageSize);
    if (after) {
      const a = after;
      query = query.where((eb) =>
        eb(
          eb.refTuple('entity_kind', 'entity_id', 'group_value', 'period_start'),
          '>',
          eb.tuple(a.entity_kind, a.entity_id, a.group_value, a.period_start),
        ),
      );
    }
    const rows = await query.execute();
    if (rows.length === 0) break;
    const pipeline = redis.pipeline();
    for (const row of rows) {
      const expireAt =
        row.period_end.getTime() === forever ? '0' : String(row.period_end.getTime() + EXPIRY_GRACE_MS);
      for (const [key, value] of counters(row)) pipeline.eval(RAISE_TO, 1, key, value, expireAt);
    }
    const results = (await pipeline.exec()) ?? [];
    for (const [err, value] of results) {
      if (err) throw err;
      if (value === 1) raised++;
    }
    entries += rows.length;
    after = rows[rows.length - 1];
    if (rows.length < pageSize) break;
  }
  return { entries, raised };
}
