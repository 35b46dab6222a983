// The usage ledger: durable cost and token usage per limited entity and period, incremented in the
// transaction that inserts the request rows, so a stored request is charged exactly once.
// Entities with their own usage limits (API key, workspace, managed provider, integration, virtual
// key) and periods as the gateway's periodAt() computes them without an anchor (docs/limits.md):
// unanchored monthly (UTC calendar months) and "never resets" (start 0). docs/logger.md "Usage ledger".
import { type Kysely, sql } from 'kysely';
import type { LogsDatabase } from '../db/schema.js';
import type { RequestLogRow } from '../ingest/request-row.js';

export interface LedgerEntry {
  entity_kind: string;
  entity_id: string;
  group_value: string;
  period_start: Date;
  period_end: Date;
  organisation_id: string;
  cost_micros: number;
  tokens: number;
  requests: number;
}

/** Start and end (exclusive) of the UTC calendar month holding `atMs`. */
export function monthPeriod(atMs: number): { start: Date; end: Date } {
  const at = new Date(atMs);
  return {
    start: new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1)),
    end: new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1)),
  };
}

/** The single period of a limit that never resets: the gateway keys it with start 0. */
export const FOREVER = Object.freeze({ start: new Date(0), end: new Date(Date.UTC(9999, 11, 31)) });

/** The ledger increments of some request rows, keyed and sorted (stable lock order). */
export function ledgerEntries(rows: readonly RequestLogRow[]): LedgerEntry[] {
  const entries = new Map<string, LedgerEntry>();
  for (const row of rows) {
    if (!row.organisation_id) continue;
    const month = monthPeriod(new Date(row.received_at).getTime());
    const owners: [string, string | null | undefined][] = [
      ['api_key', row.api_key_id],
      ['workspace', row.workspace_id],
      ['provider', row.provider_id],
      ['integration', row.integration_id],
      ['virtual_key', row.virtual_key_id],
    ];
    for (const [kind, id] of owners) {
      if (!id) continue;
      for (const { start, end } of [month, FOREVER]) {
        const key = `${kind}\u0000${id}\u0000${start.getTime()}`;
        let entry = entries.get(key);
        if (!entry) {
          entry = {
            entity_kind: kind,
            entity_id: id,
            group_value: '',
            period_start: start,
            period_end: end,
            organisation_id: row.organisation_id,
            cost_micros: 0,
            tokens: 0,
            requests: 0,
          };
          entries.set(key, entry);
        }
        entry.cost_micros += Number(row.cost_micros);
        entry.tokens += Number(row.total_tokens);
        entry.requests += 1;
      }
    }
  }
  return [...entries.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, e]) => e);
}

export async function chargeLedger(db: Kysely<LogsDatabase>, rows: readonly RequestLogRow[]): Promise<void> {
  const entries = ledgerEntries(rows);
  if (entries.length === 0) return;
  await db
    .insertInto('usage_ledger')
    .values(entries)
    .onConflict((oc) =>
      oc.columns(['entity_kind', 'entity_id', 'group_value', 'period_start']).doUpdateSet({
        cost_micros: sql`usage_ledger.cost_micros + excluded.cost_micros`,
        tokens: sql`usage_ledger.tokens + excluded.tokens`,
        requests: sql`usage_ledger.requests + excluded.requests`,
        updated_at: sql`now()`,
      }),
    )
    .execute();
}
