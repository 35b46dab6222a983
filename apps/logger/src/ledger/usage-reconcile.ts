// Writes the ledger's totals of current periods into the gateway's Redis usage counters as a
// monotonic max: a counter lower than the ledger (Redis lost its data, or restarted empty) is raised
// to it; a higher one (charges the logger has not seen yet) is left alone.
import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { LogsDatabase } from '../db/schema.js';

/** Raise-only SET with an absolute expiry; returns 1 when the counter was raised. */
const RAISE_TO = `
local current = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
local target = tonumber(ARGV[1])
if current < target then
  redis.call('SET', KEYS[1], ARGV[1], 'PXAT', ARGV[2])
  return 1
end
return 0`;

/** Counters outlive their period by a day, so a late reconcile never resurrects an expired one early. */
const EXPIRY_GRACE_MS = 86_400_000;

export type UsageMeasure = 'cost' | 'tokens';

/**
 * `<prefix>:{<entity kind>:<entity id>}:<group value>:<period start ms>:<measure>`; the braces keep an
 * entity's counters in one Redis Cluster slot. docs/logger.md "Usage ledger" states this contract.
 */
export function usageCounterKey(
  prefix: string,
  entry: { entity_kind: string; entity_id: string; group_value: string; period_start: Date },
  measure: UsageMeasure,
): string {
  return `${prefix}:{${entry.entity_kind}:${entry.entity_id}}:${entry.group_value}:${entry.period_start.getTime()}:${measure}`;
}

export interface ReconcileResult {
  readonly entries: number;
  readonly raised: number;
}

/** Raises the Redis counters of every ledger period still open at `nowMs`. */
export async function reconcileUsage(
  db: Kysely<LogsDatabase>,
  redis: Redis,
  options: { readonly prefix: string; readonly nowMs: number; readonly pageSize?: number },
): Promise<ReconcileResult> {
  const now = new Date(options.nowMs);
  const pageSize = options.pageSize ?? 1000;
  let entries = 0;
  let raised = 0;
  let after: { entity_kind: string; entity_id: string; group_value: string; period_start: Date } | undefined;
  for (;;) {
    let query = db
      .selectFrom('usage_ledger')
      .select([
        'entity_kind',
        'entity_id',
        'group_value',
        'period_start',
        'period_end',
        'cost_micros',
        'tokens',
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
      const expireAt = String(row.period_end.getTime() + EXPIRY_GRACE_MS);
      pipeline.eval(RAISE_TO, 1, usageCounterKey(options.prefix, row, 'cost'), row.cost_micros, expireAt);
      pipeline.eval(RAISE_TO, 1, usageCounterKey(options.prefix, row, 'tokens'), row.tokens, expireAt);
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
