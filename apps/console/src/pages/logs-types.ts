// The shapes of GET /v1/logs and GET /v1/logs/:id the pages read. The OpenAPI document types a
// log's core fields and leaves the rest open (`[key: string]: unknown`); the fields below are the
// control plane's (apps/control-plane/src/logs-api/logs.entity.ts, logToApi), read as such.
import type { ApiPaths } from '../api/client.js';

export type LogsQuery = NonNullable<ApiPaths['/logs']['get']['parameters']['query']>;
export type LogList = ApiPaths['/logs']['get']['responses']['200']['content']['application/json'];
export type LogRow = LogList['data'][number];
export type LogDetail = ApiPaths['/logs/{logId}']['get']['responses']['200']['content']['application/json'];
export type Feedback = LogDetail['feedback'][number];

export interface CapturedBody {
  readonly content_type: string | null;
  readonly truncated: boolean;
  readonly size_bytes: number;
  readonly json?: unknown;
  readonly text?: string;
}

export interface Attempt {
  readonly target_path: string | null;
  readonly provider: string | null;
  readonly ai_service: string | null;
  readonly model: string | null;
  readonly status_code: number;
  readonly started_at: string | null;
  readonly latency_ms: number;
  readonly retry_index: number;
  readonly error: { readonly code: string; readonly message: string } | null;
}

export interface GuardrailResult {
  readonly guardrail_id: string | null;
  readonly stage: 'input' | 'output' | null;
  readonly verdict: boolean;
  readonly denied: boolean;
  readonly latency_ms: number;
  readonly checks: readonly {
    readonly id: string;
    readonly verdict: boolean;
    readonly explanation: string | null;
    readonly errored: boolean;
  }[];
}

/** The fields of a log the OpenAPI document leaves open. */
export interface LogExtras {
  readonly span_id?: string | null;
  readonly parent_span_id?: string | null;
  readonly completed_at?: string | null;
  readonly ingested_at?: string | null;
  readonly user_id?: string | null;
  readonly config_id?: string | null;
  readonly config_version?: number | null;
  readonly prompt_id?: string | null;
  readonly prompt_version?: number | null;
  readonly prompt_label?: string | null;
  readonly model_requested?: string | null;
  readonly method?: string;
  readonly path?: string;
  readonly is_stream?: boolean;
  readonly currency?: string;
  readonly time_to_first_byte_ms?: number;
  readonly gateway_overhead_ms?: number;
  readonly error?: { readonly code: string; readonly type: string; readonly message: string } | null;
  readonly attempts?: readonly Attempt[];
  readonly guardrail_results?: readonly GuardrailResult[];
}

export interface TokenBreakdown {
  readonly input: number;
  readonly output: number;
  readonly total: number;
  readonly cached_input?: number;
  readonly estimated?: boolean;
}

export function extrasOf(log: LogDetail): LogExtras {
  return log as unknown as LogExtras;
}

export function bodyOf(body: LogDetail['request']): CapturedBody | null {
  return body as unknown as CapturedBody | null;
}

/**
 * What an attempt was: the first try of the first target, a retry of a target, or a fallback to
 * another target (a different target path after the first).
 */
export function attemptKind(attempts: readonly Attempt[], index: number): 'first' | 'retry' | 'fallback' {
  const attempt = attempts[index];
  if (!attempt || index === 0) return 'first';
  if (attempt.retry_index > 0) return 'retry';
  return attempts[index - 1]?.target_path === attempt.target_path ? 'retry' : 'fallback';
}
