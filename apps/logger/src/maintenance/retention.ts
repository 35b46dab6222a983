// Retention of everything besides request-log partitions: rollups and the ledger are
// metrics (METRICS_RETENTION_DAYS); dead letters follow the logs (LOG_RETENTION_DAYS). Audit records
// are kept: they are the compliance trail, removed only by an operator. Finished exports hold a copy
// of log rows, so they go after EXPORT_RETENTION_DAYS (their chunks cascade); queued or running ones stay.
import { type Kysely, sql } from 'kysely';
import type { LogsDatabase } from '../db/schema.js';

const DAY_MS = 86_400_000;

export interface RetentionResult {
  readonly rollups: number;
  readonly ledger: number;
  readonly deadLetters: number;
  readonly exports: number;
}

export async function applyRetention(
  db: Kysely<LogsDatabase>,
  nowMs: number,
  days: { readonly logs: number; readonly metrics: number; readonly exports: number },
): Promise<RetentionResult> {
  const metricsCutoff = new Date(nowMs - days.metrics * DAY_MS);
  const logsCutoff = new Date(nowMs - days.logs * DAY_MS);
  const rollups = await db
    .deleteFrom('request_rollups_hourly')
    .where('bucket', '<', metricsCutoff)
    .executeTakeFirst();
  const ledger = await db
    .deleteFrom('usage_ledger')
    .where('period_end', '<', metricsCutoff)
    .executeTakeFirst();
  const deadLetters = await db
    .deleteFrom('dead_letters')
    .where(sql<boolean>`received_at < ${logsCutoff}`)
    .executeTakeFirst();
  const exportsCutoff = new Date(nowMs - days.exports * DAY_MS);
  const exports = await db
    .deleteFrom('log_exports')
    .where('status', 'in', ['succeeded', 'failed', 'cancelled'])
    .where(sql<boolean>`coalesce(completed_at, updated_at) < ${exportsCutoff}`)
    .executeTakeFirst();
  return {
    rollups: Number(rollups.numDeletedRows),
    ledger: Number(ledger.numDeletedRows),
    deadLetters: Number(deadLetters.numDeletedRows),
    exports: Number(exports.numDeletedRows),
  };
}
