// Feedback a guardrail's `on_fail` / `on_success` action gave (RequestEvent guardrail_results[i].feedback):
// one `feedback` row per such result, on the request's trace in its workspace, written with the log
// row in the same transaction. The row id is derived from the event id and the result's index, so a
// replayed or duplicated event never adds a second row (docs/logger.md "Guardrail feedback").
import { createHash } from 'node:crypto';
import { Actor, ActorType, GuardrailStage, type RequestEvent } from '@aigw/proto';
import type { Insertable, Kysely } from 'kysely';
import { feedbackValueInRange, feedbackWeightInRange } from '../db/feedback-range.js';
import type { FeedbackTable, LogsDatabase, RequestLogsTable } from '../db/schema.js';

/** A log row as request-row.ts builds it (named here, not imported: request-row.ts calls this module). */
type RequestLogRow = Insertable<RequestLogsTable>;

export type GuardrailFeedbackRow = Insertable<FeedbackTable>;

/** Rows per insert statement: 10 parameters a row, well under Postgres' 65,535. */
const MAX_ROWS_PER_INSERT = 1_000;

/**
 * Who gave it: the platform itself (the gateway running the guardrail), not the caller's key. Stored
 * as Actor JSON like user feedback's `created_by`, so it reads back as `{type: "system",
 * display_name: "guardrail"}` and no restricted caller can edit it as its own.
 */
export const GUARDRAIL_ACTOR = JSON.stringify(
  Actor.toJSON(Actor.fromPartial({ type: ActorType.SYSTEM, displayName: 'guardrail' })),
);

/** Each row's feedback, kept beside it from decode to store (only events that carry some). */
const pending = new WeakMap<RequestLogRow, readonly GuardrailFeedbackRow[]>();

/** The feedback row id of the `index`-th guardrail result of event `eventId`: a name-based uuid. */
export function guardrailFeedbackId(eventId: string, index: number): string {
  const h = createHash('sha256').update(`aigw.guardrail-feedback:${eventId.toLowerCase()}:${index}`).digest();
  h[6] = ((h[6] as number) & 0x0f) | 0x80; // version 8 (RFC 9562: custom, here sha-256 of the name)
  h[8] = ((h[8] as number) & 0x3f) | 0x80; // RFC 4122 variant
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The range the feedback table (and the feedback API) accepts: anything else is not stored. */
function storable(value: number, weight: number): boolean {
  return feedbackValueInRange(value) && feedbackWeightInRange(weight);
}

/**
 * The feedback rows of `event`, whose log row is `row`; undefined when none. Feedback belongs to a
 * trace in a workspace (the feedback family): an event without trace, organisation or workspace has
 * none, and a value the table refuses is left out rather than failing the batch.
 */
export function guardrailFeedbackRows(
  row: RequestLogRow,
  event: RequestEvent,
): GuardrailFeedbackRow[] | undefined {
  const results = event.guardrailResults;
  let rows: GuardrailFeedbackRow[] | undefined;
  for (let i = 0; i < results.length; i++) {
    const result = results[i];
    const feedback = result?.feedback;
    if (!result || !feedback || !storable(feedback.value, feedback.weight)) continue;
    if (!row.trace_id || !row.organisation_id || !row.workspace_id) return undefined;
    const at = row.completed_at ?? row.received_at;
    const metadata: Record<string, string> = {
      source: 'guardrail',
      request_id: row.id,
      ...(result.guardrailId !== '' && { guardrail_id: result.guardrailId }),
      stage: result.stage === GuardrailStage.OUTPUT ? 'output' : 'input',
      verdict: result.verdict ? 'pass' : 'fail',
    };
    rows ??= [];
    rows.push({
      id: guardrailFeedbackId(row.id, i),
      trace_id: row.trace_id,
      organisation_id: row.organisation_id,
      workspace_id: row.workspace_id,
      value: feedback.value,
      weight: feedback.weight,
      metadata: JSON.stringify(metadata),
      created_by: GUARDRAIL_ACTOR,
      created_at: at,
      updated_at: at,
    });
  }
  return rows;
}

/** Remembers the feedback rows of `event` beside its log `row`, for storeGuardrailFeedback. */
export function rememberGuardrailFeedback(row: RequestLogRow, event: RequestEvent): void {
  const rows = guardrailFeedbackRows(row, event);
  if (rows) pending.set(row, rows);
}

/** Inserts the feedback of the log rows just inserted; in their transaction. Returns rows written. */
export async function storeGuardrailFeedback(
  trx: Kysely<LogsDatabase>,
  inserted: readonly RequestLogRow[],
): Promise<number> {
  const rows: GuardrailFeedbackRow[] = [];
  for (const row of inserted) {
    const feedback = pending.get(row);
    if (feedback) rows.push(...feedback);
  }
  if (rows.length === 0) return 0;
  let written = 0;
  for (let at = 0; at < rows.length; at += MAX_ROWS_PER_INSERT) {
    const result = await trx
      .insertInto('feedback')
      .values(rows.slice(at, at + MAX_ROWS_PER_INSERT))
      // The id is the event's and the result's: a row already there is this very feedback.
      .onConflict((oc) => oc.column('id').doNothing())
      .executeTakeFirst();
    written += Number(result.numInsertedOrUpdatedRows ?? 0);
  }
  return written;
}
