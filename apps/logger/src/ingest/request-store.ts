// Stores request rows idempotently in a few statements per batch: each chunk of rows is ONE
// `insert ... select * from unnest(<one binary array per column>) on conflict do nothing
// returning id` (no statement per row, no bound parameter per value, nothing formatted as text),
// then rollups, the usage ledger and guardrail feedback for the rows it actually inserted, in the
// caller's transaction.
import { CompiledQuery, type Kysely } from 'kysely';
import { type ArrayColumn, columnArrays, unnestParts } from '../db/binary-array.js';
import type { LogsDatabase } from '../db/schema.js';
import { chargeLedger } from '../ledger/usage-ledger.js';
import { storeGuardrailFeedback } from './guardrail-feedback.js';
import type { RequestLogRow } from './request-row.js';
import { upsertRollups } from './rollups.js';

/** Rows per statement: bounds the size of the column arrays (bodies are bounded by bytes below). */
const MAX_ROWS_PER_INSERT = 5_000;
/** Body bytes per statement, so that large captured bodies do not make one huge query. */
const MAX_BYTES_PER_INSERT = 8 * 1024 * 1024;

/** Every column ingest writes (`ingested_at` takes its default). */
const COLUMNS: readonly ArrayColumn<RequestLogRow>[] = [
  { name: 'id', type: 'uuid', get: (r) => r.id },
  { name: 'received_at', type: 'timestamptz', get: (r) => r.received_at },
  { name: 'completed_at', type: 'timestamptz', get: (r) => r.completed_at },
  { name: 'trace_id', type: 'text', get: (r) => r.trace_id },
  { name: 'span_id', type: 'text', get: (r) => r.span_id },
  { name: 'parent_span_id', type: 'text', get: (r) => r.parent_span_id },
  { name: 'organisation_id', type: 'text', get: (r) => r.organisation_id },
  { name: 'workspace_id', type: 'text', get: (r) => r.workspace_id },
  { name: 'api_key_id', type: 'text', get: (r) => r.api_key_id },
  { name: 'user_id', type: 'text', get: (r) => r.user_id },
  { name: 'ai_service', type: 'text', get: (r) => r.ai_service },
  { name: 'provider_slug', type: 'text', get: (r) => r.provider_slug },
  { name: 'provider_id', type: 'text', get: (r) => r.provider_id },
  { name: 'integration_id', type: 'text', get: (r) => r.integration_id },
  { name: 'virtual_key_id', type: 'text', get: (r) => r.virtual_key_id },
  { name: 'config_id', type: 'text', get: (r) => r.config_id },
  { name: 'config_version', type: 'int4', get: (r) => r.config_version },
  { name: 'prompt_id', type: 'text', get: (r) => r.prompt_id },
  { name: 'model', type: 'text', get: (r) => r.model },
  { name: 'model_requested', type: 'text', get: (r) => r.model_requested },
  { name: 'model_served', type: 'text', get: (r) => r.model_served },
  { name: 'method', type: 'text', get: (r) => r.method },
  { name: 'path', type: 'text', get: (r) => r.path },
  { name: 'status_code', type: 'int4', get: (r) => r.status_code },
  { name: 'is_stream', type: 'bool', get: (r) => r.is_stream },
  { name: 'cache_status', type: 'int2', get: (r) => r.cache_status },
  { name: 'input_tokens', type: 'int8', get: (r) => r.input_tokens },
  { name: 'output_tokens', type: 'int8', get: (r) => r.output_tokens },
  { name: 'cached_input_tokens', type: 'int8', get: (r) => r.cached_input_tokens },
  { name: 'total_tokens', type: 'int8', get: (r) => r.total_tokens },
  { name: 'tokens_estimated', type: 'bool', get: (r) => r.tokens_estimated },
  { name: 'cost_micros', type: 'int8', get: (r) => r.cost_micros },
  { name: 'currency', type: 'text', get: (r) => r.currency },
  { name: 'latency_ms', type: 'float8', get: (r) => r.latency_ms },
  { name: 'ttfb_ms', type: 'float8', get: (r) => r.ttfb_ms },
  { name: 'upstream_ms', type: 'float8', get: (r) => r.upstream_ms },
  { name: 'gateway_overhead_ms', type: 'float8', get: (r) => r.gateway_overhead_ms },
  { name: 'metadata', type: 'jsonb', get: (r) => r.metadata },
  { name: 'error_code', type: 'text', get: (r) => r.error_code },
  { name: 'error_type', type: 'text', get: (r) => r.error_type },
  { name: 'error_message', type: 'text', get: (r) => r.error_message },
  { name: 'attempts', type: 'int4', get: (r) => r.attempts },
  { name: 'request_size_bytes', type: 'int8', get: (r) => r.request_size_bytes },
  { name: 'response_size_bytes', type: 'int8', get: (r) => r.response_size_bytes },
  { name: 'request_body', type: 'bytea', get: (r) => r.request_body },
  { name: 'request_body_content_type', type: 'text', get: (r) => r.request_body_content_type },
  { name: 'request_body_truncated', type: 'bool', get: (r) => r.request_body_truncated },
  { name: 'response_body', type: 'bytea', get: (r) => r.response_body },
  { name: 'response_body_content_type', type: 'text', get: (r) => r.response_body_content_type },
  { name: 'response_body_truncated', type: 'bool', get: (r) => r.response_body_truncated },
  { name: 'log_format', type: 'text', get: (r) => r.log_format },
  { name: 'gateway_instance_id', type: 'text', get: (r) => r.gateway_instance_id },
  { name: 'event', type: 'bytea', get: (r) => r.event },
];

const parts = unnestParts(COLUMNS);
const INSERT = `insert into request_logs (${parts.columns}) select * from ${parts.from}
  on conflict do nothing returning id`;

function rowBytes(row: RequestLogRow): number {
  return (row.request_body?.length ?? 0) + (row.response_body?.length ?? 0) + row.event.length;
}

function chunkBytes(rows: readonly RequestLogRow[]): number {
  let bytes = 0;
  for (const row of rows) bytes += rowBytes(row);
  return bytes;
}

function* chunks(rows: readonly RequestLogRow[]): Generator<RequestLogRow[]> {
  let chunk: RequestLogRow[] = [];
  let bytes = 0;
  for (const row of rows) {
    const size = rowBytes(row);
    if (chunk.length > 0 && (chunk.length >= MAX_ROWS_PER_INSERT || bytes + size > MAX_BYTES_PER_INSERT)) {
      yield chunk;
      chunk = [];
      bytes = 0;
    }
    chunk.push(row);
    bytes += size;
  }
  if (chunk.length > 0) yield chunk;
}

export interface StoreResult {
  readonly inserted: number;
  readonly duplicates: number;
}

/** Inserts one chunk; the ids of the rows it inserted (a present `(id, received_at)` is skipped). */
async function insertChunk(trx: Kysely<LogsDatabase>, rows: readonly RequestLogRow[]): Promise<string[]> {
  const { rows: ids } = await trx.executeQuery<{ id: string }>(
    CompiledQuery.raw(INSERT, columnArrays(COLUMNS, rows, rows.length * 400 + chunkBytes(rows))),
  );
  return ids.map((r) => r.id);
}

/** Must run inside a transaction: rollups, ledger and feedback must commit with the rows or not at all. */
export async function storeRequestRows(
  trx: Kysely<LogsDatabase>,
  rows: readonly RequestLogRow[],
): Promise<StoreResult> {
  const unique = new Map<string, RequestLogRow>();
  for (const row of rows) if (!unique.has(row.id)) unique.set(row.id, row);
  const inserted: RequestLogRow[] = [];
  // Sorted so that two batches carrying the same events wait on each other instead of deadlocking.
  const sorted = [...unique.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const chunk of chunks(sorted)) {
    for (const id of await insertChunk(trx, chunk)) {
      const row = unique.get(id);
      if (row) inserted.push(row);
    }
  }
  if (inserted.length > 0) {
    await upsertRollups(trx, inserted);
    await chargeLedger(trx, inserted);
    await storeGuardrailFeedback(trx, inserted);
  }
  return { inserted: inserted.length, duplicates: rows.length - inserted.length };
}
