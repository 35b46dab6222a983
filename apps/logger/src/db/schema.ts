// Typed view of the `logs` schema for Kysely. Column names are a contract with the query side
// (logs/, query/): docs/logger.md "Storage" describes them; change them only by a new migration.
import type { ColumnType, Generated } from 'kysely';

export const SCHEMA = 'logs';

/** bigint columns: pg returns them as strings; inserts accept numbers. */
type Int8 = ColumnType<string, number | bigint | string, number | bigint | string>;
/** timestamptz columns: read as Date, written as Date or ISO text. */
type Timestamp = ColumnType<Date, Date | string, Date | string>;
type DefaultedTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json = ColumnType<unknown, string, string>;

export interface DeadLettersTable {
  id: Generated<string>;
  stream: string;
  subject: string;
  stream_seq: Int8;
  /** Index of the event inside a RequestEventBatch; -1 when the whole message was set aside. */
  event_index: ColumnType<number, number | undefined, number>;
  /** Id of the event when it could be read; null otherwise. */
  event_id: string | null;
  /** Deliveries the message had when it was set aside. */
  deliveries: ColumnType<number, number | undefined, number>;
  payload: Buffer;
  error: string;
  received_at: ColumnType<Date, never, never>;
}

/** One request; partitioned by day on received_at. `cache_status` is the CacheStatus enum value. */
export interface RequestLogsTable {
  id: string;
  received_at: Timestamp;
  ingested_at: DefaultedTimestamp;
  completed_at: Timestamp | null;
  trace_id: string | null;
  span_id: string | null;
  parent_span_id: string | null;
  organisation_id: string | null;
  workspace_id: string | null;
  api_key_id: string | null;
  user_id: string | null;
  /** Provider type (`openai`): the analytics "ai_service". */
  ai_service: string | null;
  provider_slug: string | null;
  provider_id: string | null;
  integration_id: string | null;
  virtual_key_id: string | null;
  config_id: string | null;
  config_version: number | null;
  /** RequestEvent.prompt_id, else metadata `_prompt`. */
  prompt_id: string | null;
  /** Served model, else the requested one. */
  model: string | null;
  model_requested: string | null;
  model_served: string | null;
  method: string;
  path: string;
  status_code: number;
  is_stream: boolean;
  cache_status: number;
  input_tokens: Int8;
  output_tokens: Int8;
  cached_input_tokens: Int8;
  total_tokens: Int8;
  tokens_estimated: boolean;
  cost_micros: Int8;
  currency: string;
  latency_ms: number;
  ttfb_ms: number;
  upstream_ms: number;
  gateway_overhead_ms: number;
  metadata: Json;
  error_code: string | null;
  error_type: string | null;
  error_message: string | null;
  /** Number of attempts (retries and fallbacks each count). */
  attempts: number;
  request_size_bytes: Int8;
  response_size_bytes: Int8;
  request_body: Buffer | null;
  request_body_content_type: string | null;
  request_body_truncated: boolean;
  response_body: Buffer | null;
  response_body_content_type: string | null;
  response_body_truncated: boolean;
  /** How the bodies are stored: `json`, `sse`, `text`, `binary` or `none`. */
  log_format: string;
  gateway_instance_id: string | null;
  /** The RequestEvent protobuf without its bodies (attempts, guardrails, latency breakdown). */
  event: Buffer;
}

/** Request totals per hour and dimension combination, maintained on ingest. */
export interface RequestRollupsHourlyTable {
  bucket: Timestamp;
  organisation_id: string | null;
  workspace_id: string | null;
  api_key_id: string | null;
  ai_service: string | null;
  provider_slug: string | null;
  model: string | null;
  status_code: number;
  config_id: string | null;
  prompt_id: string | null;
  requests: Int8;
  /** Requests answered with status >= 400. */
  errors: Int8;
  /** Requests served from the simple or semantic cache. */
  cache_hits: Int8;
  input_tokens: Int8;
  output_tokens: Int8;
  cached_input_tokens: Int8;
  total_tokens: Int8;
  cost_micros: Int8;
  latency_ms_sum: number;
  latency_ms_max: number;
  first_seen_at: Timestamp;
  last_seen_at: Timestamp;
}

/** One audit record. `actor_type` and `outcome` are the ActorType and AuditOutcome enum values. */
export interface AuditLogsTable {
  id: string;
  occurred_at: Timestamp;
  ingested_at: DefaultedTimestamp;
  /** Null: unattributed (a refused credential whose organisation could not be known). */
  organisation_id: string | null;
  workspace_id: string | null;
  actor_type: number;
  actor_user_id: string | null;
  actor_api_key_id: string | null;
  actor_display_name: string | null;
  action: string;
  resource_type: string;
  resource_id: string | null;
  ip: string | null;
  user_agent: string | null;
  request_method: string | null;
  request_path: string | null;
  request_details: Json;
  outcome: number;
  status_code: number;
  trace_id: string | null;
}

/** Durable usage per limited entity, group value and period (docs/logger.md "Usage ledger"). */
export interface UsageLedgerTable {
  /** `api_key`, `workspace`, ... (EntityKind name in lower case). */
  entity_kind: string;
  entity_id: string;
  group_value: ColumnType<string, string | undefined, string>;
  period_start: Timestamp;
  period_end: Timestamp;
  organisation_id: string;
  cost_micros: ColumnType<string, number | bigint | string | undefined, number | bigint | string>;
  tokens: ColumnType<string, number | bigint | string | undefined, number | bigint | string>;
  requests: ColumnType<string, number | bigint | string | undefined, number | bigint | string>;
  updated_at: DefaultedTimestamp;
  /** The gateway's Redis counter of this row's cost (from RequestEvent.usage_charges); null when derived. */
  cost_counter_key: ColumnType<string | null, string | null | undefined, string | null>;
  /** The same for tokens. */
  tokens_counter_key: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface FeedbackTable {
  id: Generated<string>;
  trace_id: string;
  organisation_id: string;
  workspace_id: string | null;
  /** -10..10 */
  value: number;
  /** 0..1 */
  weight: ColumnType<number, number | undefined, number>;
  metadata: ColumnType<unknown, string | undefined, string>;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
  created_by: string | null;
}

export type LogExportStatus = 'pending' | 'running' | 'succeeded' | 'failed' | 'cancelled';

export interface LogExportsTable {
  id: Generated<string>;
  organisation_id: string;
  workspace_id: string | null;
  filters: ColumnType<unknown, string | undefined, string>;
  fields: string[];
  format: 'jsonl' | 'csv';
  status: ColumnType<LogExportStatus, LogExportStatus | undefined, LogExportStatus>;
  /** 0..1 */
  progress: ColumnType<number, number | undefined, number>;
  row_count: ColumnType<string, number | bigint | string | undefined, number | bigint | string>;
  error: string | null;
  content: Buffer | null;
  file_path: string | null;
  created_by: string | null;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
  started_at: Timestamp | null;
  completed_at: Timestamp | null;
  /** Rows matching when the export started (progress = row_count / total_rows). */
  total_rows: ColumnType<string, number | bigint | string | undefined, number | bigint | string>;
  size_bytes: ColumnType<string, number | bigint | string | undefined, number | bigint | string>;
}

/** An export's file, in `seq` order. */
export interface LogExportChunksTable {
  export_id: string;
  seq: number;
  data: Buffer;
}

export interface LogsDatabase {
  dead_letters: DeadLettersTable;
  request_logs: RequestLogsTable;
  request_rollups_hourly: RequestRollupsHourlyTable;
  audit_logs: AuditLogsTable;
  usage_ledger: UsageLedgerTable;
  feedback: FeedbackTable;
  log_exports: LogExportsTable;
  log_export_chunks: LogExportChunksTable;
}
