// The usage ledger: durable cost and token usage per usage-limit owner, group and period,
// incremented in the transaction that inserts the request rows, so a stored request is charged
// exactly once. An event that reports its usage charges (RequestEvent.usage_charges: policies per
// group value, entity limits, every period kind) is charged to exactly those; an event that does not
// (older or standalone gateways) is charged to its API key, workspace, provider, integration and
// virtual key for the unanchored monthly and "never resets" periods. docs/logger.md "Usage ledger".
import { EntityKind, type UsageCharge, UsageLimitType } from '@aigw/proto';
import { type Insertable, type Kysely, sql } from 'kysely';
import type { LogsDatabase, RequestLogsTable } from '../db/schema.js';

/** A request_logs row as ingest builds it (ingest/request-row.ts); the ledger sits below ingest. */
type RequestLogRow = Insertable<RequestLogsTable>;

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
  cost_counter_key: string | null;
  tokens_counter_key: string | null;
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

/**
 * The usage charges of the events rows were made from, beside the rows rather than in them (a row
 * is exactly the request_logs columns). Only events that report charges are here.
 */
const reportedCharges = new WeakMap<RequestLogRow, readonly UsageCharge[]>();

/** Records that `row`'s event reported these charges (possibly none): the ledger charges exactly them. */
export function rememberUsageCharges(row: RequestLogRow, charges: readonly UsageCharge[]): void {
  reportedCharges.set(row, charges);
}

/** Ledger spelling of an owner kind: the EntityKind name in lower case (`usage_limit_policy`). */
const OWNER_KINDS: Partial<Record<EntityKind, string>> = {
  [EntityKind.USAGE_LIMIT_POLICY]: 'usage_limit_policy',
  [EntityKind.API_KEY]: 'api_key',
  [EntityKind.WORKSPACE]: 'workspace',
  [EntityKind.PROVIDER]: 'provider',
  [EntityKind.INTEGRATION]: 'integration',
  [EntityKind.VIRTUAL_KEY]: 'virtual_key',
};

type Entries = Map<string, LedgerEntry>;

function entryFor(
  entries: Entries,
  owner: { kind: string; id: string; group: string; start: Date; end: Date; organisationId: string },
): LedgerEntry {
  const key = `${owner.kind}\u0000${owner.id}\u0000${owner.group}\u0000${owner.start.getTime()}`;
  let entry = entries.get(key);
  if (!entry) {
    entry = {
      entity_kind: owner.kind,
      entity_id: owner.id,
      group_value: owner.group,
      period_start: owner.start,
      period_end: owner.end,
      organisation_id: owner.organisationId,
      cost_micros: 0,
      tokens: 0,
      requests: 0,
      cost_counter_key: null,
      tokens_counter_key: null,
    };
    entries.set(key, entry);
  }
  return entry;
}

/** Today's derivation, for events that do not report their charges. */
function derive(entries: Entries, row: RequestLogRow, organisationId: string): void {
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
      const entry = entryFor(entries, { kind, id, group: '', start, end, organisationId });
      entry.cost_micros += Number(row.cost_micros);
      entry.tokens += Number(row.total_tokens);
      entry.requests += 1;
    }
  }
}

/**
 * One event's charges: each (owner, group, period) once, with the amount the gateway added to its
 * counter for the measure it counts, and the event's own cost or tokens for the other measure.
 */
function charge(
  entries: Entries,
  row: RequestLogRow,
  organisationId: string,
  charges: readonly UsageCharge[],
) {
  const mine = new Map<string, { entry: LedgerEntry; cost?: number; tokens?: number }>();
  for (const c of charges) {
    const kind = OWNER_KINDS[c.ownerKind];
    if (!kind || !c.ownerId) continue;
    // A limit that never resets has no period end; its period starts at 0, or at the policy's
    // latest usage reset of this group (docs/limits.md "Resets").
    const forever = c.periodEndMs === 0;
    const start = forever && c.periodStartMs <= 0 ? FOREVER.start : new Date(c.periodStartMs);
    const end = forever ? FOREVER.end : new Date(c.periodEndMs);
    const entry = entryFor(entries, { kind, id: c.ownerId, group: c.groupValue, start, end, organisationId });
    const key = `${kind}\u0000${c.ownerId}\u0000${c.groupValue}\u0000${start.getTime()}`;
    let seen = mine.get(key);
    if (!seen) {
      seen = { entry };
      mine.set(key, seen);
    }
    if (c.measure === UsageLimitType.COST) {
      seen.cost = c.amount;
      if (c.counterKey) entry.cost_counter_key = c.counterKey;
    } else if (c.measure === UsageLimitType.TOKENS) {
      seen.tokens = c.amount;
      if (c.counterKey) entry.tokens_counter_key = c.counterKey;
    }
  }
  for (const { entry, cost, tokens } of mine.values()) {
    entry.cost_micros += cost ?? Number(row.cost_micros);
    entry.tokens += tokens ?? Number(row.total_tokens);
    entry.requests += 1;
  }
}

/** The ledger increments of some request rows, keyed and sorted (stable lock order). */
export function ledgerEntries(rows: readonly RequestLogRow[]): LedgerEntry[] {
  const entries: Entries = new Map();
  for (const row of rows) {
    if (!row.organisation_id) continue;
    const charges = reportedCharges.get(row);
    if (charges) charge(entries, row, row.organisation_id, charges);
    else derive(entries, row, row.organisation_id);
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
        cost_counter_key: sql`coalesce(excluded.cost_counter_key, usage_ledger.cost_counter_key)`,
        tokens_counter_key: sql`coalesce(excluded.tokens_counter_key, usage_ledger.tokens_counter_key)`,
        updated_at: sql`now()`,
      }),
    )
    .execute();
}
