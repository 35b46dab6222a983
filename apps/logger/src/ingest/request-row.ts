// RequestEvent -> request_logs row: the one translation from the gateway's event to stored columns.
import { CacheStatus, type CapturedBody, RequestEvent, SCHEMA_VERSION } from '@aigw/proto';
import type { Insertable } from 'kysely';
import type { RequestLogsTable } from '../db/schema.js';
import { rememberUsageCharges } from '../ledger/usage-ledger.js';
import { rememberGuardrailFeedback } from './guardrail-feedback.js';

export type RequestLogRow = Insertable<RequestLogsTable>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Text Postgres refuses (NUL) is dropped rather than failing the whole batch. */
const NUL = '\u0000';
/** Metadata key naming the prompt when the event carries no prompt_id. */
const PROMPT_METADATA_KEY = '_prompt';

/** Why an event cannot be stored; undefined when it can. */
export function invalidRequestEvent(event: RequestEvent): string | undefined {
  if (event.schemaVersion < 1 || event.schemaVersion > SCHEMA_VERSION) {
    return `unsupported schema_version ${event.schemaVersion}`;
  }
  if (!UUID.test(event.id)) return 'id is not a uuid';
  if (!(event.receivedAtMs > 0)) return 'received_at_ms is not set';
  return undefined;
}

function text(value: string | undefined): string | null {
  if (value === undefined || value === '') return null;
  return value.includes(NUL) ? value.replaceAll(NUL, '') : value;
}

function ms(us: number | undefined): number {
  return (us ?? 0) / 1000;
}

/** How stored bodies should be read back: by the response body's content type. */
export function logFormat(request: CapturedBody | undefined, response: CapturedBody | undefined): string {
  const body = response?.data.length ? response : request?.data.length ? request : undefined;
  if (!body) return 'none';
  const type = body.contentType.toLowerCase();
  if (type.includes('text/event-stream')) return 'sse';
  if (type.includes('json')) return 'json';
  if (type.startsWith('text/')) return 'text';
  return 'binary';
}

function metadataJson(metadata: Record<string, string>): string {
  const clean: Record<string, string> = {};
  for (const [key, value] of Object.entries(metadata)) {
    clean[key.replaceAll(NUL, '')] = value.replaceAll(NUL, '');
  }
  return JSON.stringify(clean);
}

function bodyBytes(body: CapturedBody | undefined): Buffer | null {
  return body?.data.length ? Buffer.from(body.data.buffer, body.data.byteOffset, body.data.length) : null;
}

/** The row of a valid event (see invalidRequestEvent), its `event` column encoded from it. */
export function requestLogRow(event: RequestEvent): RequestLogRow {
  return requestLogRowOf(
    event,
    RequestEvent.encode({ ...event, requestBody: undefined, responseBody: undefined }).finish(),
  );
}

/**
 * The row of a valid event whose bytes without bodies are at hand (ingest reads them off the wire,
 * event-wire.ts): no encode.
 */
export function requestLogRowOf(event: RequestEvent, withoutBodies: Uint8Array): RequestLogRow {
  const provider = event.provider;
  const tokens = event.tokens;
  const latency = event.latency;
  const { requestBody, responseBody } = event;
  const row: RequestLogRow = {
    id: event.id.toLowerCase(),
    received_at: new Date(event.receivedAtMs),
    completed_at: event.completedAtMs > 0 ? new Date(event.completedAtMs) : null,
    trace_id: text(event.traceId),
    span_id: text(event.spanId),
    parent_span_id: text(event.parentSpanId),
    organisation_id: text(event.organisationId),
    workspace_id: text(event.workspaceId),
    api_key_id: text(event.apiKeyId),
    user_id: text(event.userId),
    ai_service: text(provider?.type),
    provider_slug: text(provider?.slug),
    provider_id: text(provider?.providerId),
    integration_id: text(provider?.integrationId),
    virtual_key_id: text(event.virtualKeyId),
    config_id: text(event.configId),
    config_version: event.configId ? event.configVersion : null,
    prompt_id: text(event.promptId) ?? text(event.metadata[PROMPT_METADATA_KEY]),
    model: text(event.modelServed) ?? text(event.modelRequested),
    model_requested: text(event.modelRequested),
    model_served: text(event.modelServed),
    method: text(event.method) ?? '',
    path: text(event.path) ?? '',
    status_code: event.statusCode,
    is_stream: event.isStream,
    cache_status: event.cacheStatus,
    input_tokens: tokens?.inputTokens ?? 0,
    output_tokens: tokens?.outputTokens ?? 0,
    cached_input_tokens: tokens?.cachedInputTokens ?? 0,
    total_tokens: tokens?.totalTokens ?? 0,
    tokens_estimated: tokens?.estimated ?? false,
    cost_micros: event.cost?.amountMicros ?? 0,
    currency: text(event.cost?.currency) ?? 'USD',
    latency_ms: ms(latency?.totalUs),
    ttfb_ms: ms(latency?.timeToFirstByteUs),
    upstream_ms: ms(latency?.upstreamUs),
    gateway_overhead_ms: ms(latency?.gatewayOverheadUs),
    metadata: metadataJson(event.metadata),
    error_code: text(event.error?.code),
    error_type: text(event.error?.type),
    error_message: text(event.error?.message),
    attempts: event.attempts.length,
    request_size_bytes: event.requestSizeBytes,
    response_size_bytes: event.responseSizeBytes,
    request_body: bodyBytes(requestBody),
    request_body_content_type: text(requestBody?.contentType),
    request_body_truncated: requestBody?.truncated ?? false,
    response_body: bodyBytes(responseBody),
    response_body_content_type: text(responseBody?.contentType),
    response_body_truncated: responseBody?.truncated ?? false,
    log_format: logFormat(requestBody, responseBody),
    gateway_instance_id: text(event.gatewayInstanceId),
    event: Buffer.from(withoutBodies.buffer, withoutBodies.byteOffset, withoutBodies.length),
  };
  // The usage ledger charges exactly what the gateway says it charged (usage-ledger.ts).
  if (event.usageChargesReported) rememberUsageCharges(row, event.usageCharges);
  // A guardrail's on_fail / on_success feedback becomes feedback rows (guardrail-feedback.ts).
  if (event.guardrailResults.length > 0) rememberGuardrailFeedback(row, event);
  return row;
}

/** Served from the simple or semantic cache. */
export function isCacheHit(cacheStatus: number): boolean {
  return cacheStatus === CacheStatus.HIT || cacheStatus === CacheStatus.SEMANTIC_HIT;
}
