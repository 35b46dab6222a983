// The fields a log export may contain, each read from a request_logs row, and how a row becomes one
// JSONL line or one CSV record.
import { type CacheStatus, cacheStatusToJSON } from '@aigw/proto';
import type { Selectable } from 'kysely';
import type { RequestLogsTable } from '../../db/schema.js';
import { invalidArgument } from '../query-error.js';

type Row = Selectable<RequestLogsTable>;
type Value = string | number | boolean | null | Record<string, unknown>;

const iso = (d: Date | null) => (d === null ? null : d.toISOString());
const body = (data: Buffer | null) => (data === null ? null : data.toString('utf8'));

export const EXPORT_FIELDS: Readonly<Record<string, (row: Row) => Value>> = {
  id: (r) => r.id,
  trace_id: (r) => r.trace_id,
  received_at: (r) => iso(r.received_at),
  completed_at: (r) => iso(r.completed_at),
  organisation_id: (r) => r.organisation_id,
  workspace_id: (r) => r.workspace_id,
  api_key_id: (r) => r.api_key_id,
  user_id: (r) => r.user_id,
  ai_service: (r) => r.ai_service,
  provider: (r) => r.provider_slug,
  model: (r) => r.model,
  model_requested: (r) => r.model_requested,
  method: (r) => r.method,
  path: (r) => r.path,
  status_code: (r) => r.status_code,
  is_stream: (r) => r.is_stream,
  cache_status: (r) => cacheStatusToJSON(r.cache_status as CacheStatus).replace(/^CACHE_STATUS_/, ''),
  input_tokens: (r) => Number(r.input_tokens),
  output_tokens: (r) => Number(r.output_tokens),
  total_tokens: (r) => Number(r.total_tokens),
  cost: (r) => Number(r.cost_micros) / 1e6,
  currency: (r) => r.currency,
  latency_ms: (r) => r.latency_ms,
  config_id: (r) => r.config_id,
  prompt_id: (r) => r.prompt_id,
  metadata: (r) => (r.metadata ?? {}) as Record<string, unknown>,
  error_code: (r) => r.error_code,
  error_message: (r) => r.error_message,
  request_body: (r) => body(r.request_body),
  response_body: (r) => body(r.response_body),
};

/** Fields of an export that names none. */
export const DEFAULT_FIELDS = [
  'id',
  'trace_id',
  'received_at',
  'workspace_id',
  'api_key_id',
  'ai_service',
  'provider',
  'model',
  'status_code',
  'cache_status',
  'input_tokens',
  'output_tokens',
  'total_tokens',
  'cost',
  'latency_ms',
  'metadata',
] as const;

export function checkFields(fields: readonly string[]): string[] {
  if (fields.length === 0) return [...DEFAULT_FIELDS];
  const seen = new Set<string>();
  for (const field of fields) {
    if (!(field in EXPORT_FIELDS))
      throw invalidArgument(
        `unknown export field ${JSON.stringify(field)}; known: ${Object.keys(EXPORT_FIELDS).join(', ')}`,
      );
    if (seen.has(field)) throw invalidArgument(`export field ${field} is listed twice`);
    seen.add(field);
  }
  return [...fields];
}

export function needsBodies(fields: readonly string[]): boolean {
  return fields.includes('request_body') || fields.includes('response_body');
}

export function jsonLine(row: Row, fields: readonly string[]): string {
  const out: Record<string, Value> = {};
  for (const f of fields) out[f] = EXPORT_FIELDS[f]!(row);
  return `${JSON.stringify(out)}\n`;
}

/**
 * One RFC 4180 record. Text cells that a spreadsheet would run as a formula (leading = + - @, tab
 * or carriage return) get a leading apostrophe: exports are opened in spreadsheets, and log content
 * (bodies, metadata) is attacker-controlled.
 */
export function csvRecord(values: readonly Value[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}

export function csvRow(row: Row, fields: readonly string[]): string {
  return csvRecord(fields.map((f) => EXPORT_FIELDS[f]!(row)));
}

function csvCell(value: Value): string {
  if (value === null) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  let text = typeof value === 'string' ? value : JSON.stringify(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export const CONTENT_TYPES = { jsonl: 'application/x-ndjson', csv: 'text/csv; charset=utf-8' } as const;
