// Retention of everything besides request-log partitions: rollups, the ledger and usage alerts are
// metrics (METRICS_RETENTION_DAYS); dead letters follow the logs (LOG_RETENTION_DAYS). Audit records
// are kept: they are the compliance trail, removed only by an operator.
import { type Kysely, sql } from 'kysely';
import type { LogsDatabase } from '../db/schema.js';

const DAY_MS = 86_400_000;

export interface RetentionResult {
  readonly rollups: number;
  readonly ledger: number;
  readonly alerts: number;
  readonly deadLetters: number;
}

export async function applyRetention(
  db: Kysely<LogsDatabase>,
  nowMs: number,
  days: { readonly logs: number; readonly metrics: number },
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
  const alerts = await db
    .deleteFrom('usage_alerts')
    .where('occurred_at', '<', metricsCutoff)
    .executeTakeFirst();
  const deadLetters = await db
    .deleteFrom('dead_letters')
    .where(sql<boolean>`received_at < ${logsCutoff}`)
    .executeTakeFirst();
  return {
    rollups: Number(rollups.numDeletedRows),
    ledger: Number(ledger.numDeletedRows),
    alerts: Number(alerts.numDeletedRows),
    deadLetters: Number(deadLetters.numDeletedRows),
  };
}
