// Stores request rows idempotently in a few statements per batch: each chunk of rows is ONE
// `insert ... select * from unnest(<one binary array per column>) on conflict do nothing
// returning id` (no statement per row, no bound parameter per value, nothing formatted as text),
// then rollups and the usage ledger for the rows it actually inserted, in the caller's transaction.
import { CompiledQuery, type Kysely } from 'kysely';
import { type ArrayColumn, columnArrays, unnestParts } from '../db/binary-array.js';
import type { LogsDatabase } from '../db/schema.js';
import { chargeLedger } from '../ledger/usage-ledger.js';
import type { RequestLogRow } from './request-row.js';
import { upsertRollups } from './rollups.js';

/** Rows per statement: bounds the size of the column arrays (bodies are bounded by bytes below). */
const MAX_ROWS_PER_INSERT = 5_000;
/** Body bytes per statement, so that large captured bodies do not make one huge query. */
const MAX_BYTES_PER_INSERT = 8 * 1024 * 1024;

/** Every column ingest writes (`ingested_at` takes its default). */
const COLUMNS: readonly ArrayColumn<RequestLogRow>[] = [
  { name: 'id', type: 'uuid' },
  { name: 'received_at', type: 'timestamptz' },
  { name: 'completed_at', type: 'timestamptz' },
  { name: 'trace_id', type: 'text' },
  { name: 'span_id', type: 'text' },
  { name: 'parent_span_id', type: 'text' },
  { name: 'organisation_id', type: 'text' },
  { name: 'workspace_id', type: 'text' },
  { name: 'api_key_id', type: 'text' },
  { name: 'user_id', type: 'text' },
  { name: 'ai_service', type: 'text' },
  { name: 'provider_slug', type: 'text' },
  { name: 'provider_id', type: 'text' },
  { name: 'integration_id', type: 'text' },
  { name: 'virtual_key_id', type: 'text' },
  { name: 'config_id', type: 'text' },
  { name: 'config_version', type: 'int4' },
  { name: 'prompt_id', type: 'text' },
  { name: 'model', type: 'text' },
  { name: 'model_requested', type: 'text' },
  { name: 'model_served', type: 'text' },
  { name: 'method', type: 'text' },
  { name: 'path', type: 'text' },
  { name: 'status_code', type: 'int4' },
  { name: 'is_stream', type: 'bool' },
  { name: 'cache_status', type: 'int2' },
  { name: 'input_tokens', type: 'int8' },
  { name: 'output_tokens', type: 'int8' },
  { name: 'cached_input_tokens', type: 'int8' },
  { name: 'total_tokens', type: 'int8' },
  { name: 'tokens_estimated', type: 'bool' },
  { name: 'cost_micros', type: 'int8' },
  { name: 'currency', type: 'text' },
  { name: 'latency_ms', type: 'float8' },
  { name: 'ttfb_ms', type: 'float8' },
  { name: 'upstream_ms', type: 'float8' },
  { name: 'gateway_overhead_ms', type: 'float8' },
  { name: 'metadata', type: 'jsonb' },
  { name: 'error_code', type: 'text' },
  { name: 'error_type', type: 'text' },
  { name: 'error_message', type: 'text' },
  { name: 'attempts', type: 'int4' },
  { name: 'request_size_bytes', type: 'int8' },
  { name: 'response_size_bytes', type: 'int8' },
  { name: 'request_body', type: 'bytea' },
  { name: 'request_body_content_type', type: 'text' },
  { name: 'request_body_truncated', type: 'bool' },
  { name: 'response_body', type: 'bytea' },
  { name: 'response_body_content_type', type: 'text' },
  { name: 'response_body_truncated', type: 'bool' },
  { name: 'log_format', type: 'text' },
  { name: 'gateway_instance_id', type: 'text' },
  { name: 'event', type: 'bytea' },
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

/** Must run inside a transaction: the rollups and ledger must commit with the rows or not at all. */
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
  }
  return { inserted: inserted.length, duplicates: rows.length - inserted.length };
}
