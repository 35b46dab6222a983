// Logger records as the admin API shows them: snake_case, ISO times, costs in USD, latencies in ms.
import {
  type Actor,
  type AuditEvent,
  actorTypeToJSON,
  auditOutcomeToJSON,
  type CapturedBody,
  cacheStatusToJSON,
  type Feedback,
  type LogEntry,
} from '@aigw/proto';
import { jsonDeeperThan, MAX_JSON_DEPTH } from '@aigw/runtime';
import { z } from 'zod';

const iso = (ms: number) => (ms > 0 ? new Date(ms).toISOString() : null);
const ms = (us: number | undefined) => (us ?? 0) / 1000;
const usd = (micros: number | undefined) => (micros ?? 0) / 1e6;
const none = (v: string | undefined) => (v ? v : null);
const enumName = (text: string, prefix: string) => text.replace(prefix, '').toLowerCase();

export function actorToApi(actor: Actor | undefined) {
  return {
    type: enumName(actorTypeToJSON(actor?.type ?? 0), 'ACTOR_TYPE_'),
    user_id: none(actor?.userId),
    api_key_id: none(actor?.apiKeyId),
    display_name: none(actor?.displayName),
  };
}

function bodyToApi(body: CapturedBody | undefined) {
  if (!body) return null;
  const text = Buffer.from(body.data).toString('utf8');
  let json: unknown;
  if (/json/i.test(body.contentType) && !body.truncated) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    // A captured body may nest deeper than any response serialiser can write (JSON.stringify
    // overflows the stack near 5,000 levels): such a body is returned as its text, so every stored
    // log stays readable.
    if (json !== undefined && jsonDeeperThan(json, MAX_JSON_DEPTH)) json = undefined;
  }
  return {
    content_type: none(body.contentType),
    truncated: body.truncated,
    size_bytes: body.sizeBytes,
    ...(json === undefined ? { text } : { json }),
  };
}

export function feedbackToApi(f: Feedback) {
  return {
    id: f.id,
    object: 'feedback' as const,
    trace_id: f.traceId,
    value: f.value,
    weight: f.weight,
    metadata: f.metadata,
    workspace_id: none(f.workspaceId),
    created_by: actorToApi(f.createdBy),
    created_at: iso(f.createdAtMs),
    last_updated_at: iso(f.updatedAtMs),
  };
}

export function logToApi(entry: LogEntry, detail?: { logFormat: string }) {
  const r = entry.request!;
  const out = {
    id: r.id,
    object: 'log' as const,
    trace_id: none(r.traceId),
    span_id: none(r.spanId),
    parent_span_id: none(r.parentSpanId),
    created_at: iso(r.receivedAtMs),
    completed_at: iso(r.completedAtMs),
    ingested_at: iso(entry.ingestedAtMs),
    organisation_id: r.organisationId,
    workspace_id: none(r.workspaceId),
    api_key_id: none(r.apiKeyId),
    user_id: none(r.userId),
    ai_service: none(r.provider?.type),
    provider: none(r.provider?.slug),
    config_id: none(r.configId),
    config_version: r.configId ? r.configVersion : null,
    prompt_id: none(r.promptId),
    prompt_version: r.promptId ? r.promptVersion || null : null,
    prompt_label: none(r.promptLabel),
    model: none(r.modelServed) ?? none(r.modelRequested),
    model_requested: none(r.modelRequested),
    method: r.method,
    path: r.path,
    status_code: r.statusCode,
    is_stream: r.isStream,
    cache_status: enumName(cacheStatusToJSON(r.cacheStatus), 'CACHE_STATUS_'),
    tokens: {
      input: r.tokens?.inputTokens ?? 0,
      output: r.tokens?.outputTokens ?? 0,
      total: r.tokens?.totalTokens ?? 0,
      cached_input: r.tokens?.cachedInputTokens ?? 0,
      estimated: r.tokens?.estimated ?? false,
    },
    cost: usd(r.cost?.amountMicros),
    currency: r.cost?.currency || 'USD',
    latency_ms: ms(r.latency?.totalUs),
    time_to_first_byte_ms: ms(r.latency?.timeToFirstByteUs),
    gateway_overhead_ms: ms(r.latency?.gatewayOverheadUs),
    metadata: r.metadata,
    error: r.error ? { code: r.error.code, type: r.error.type, message: r.error.message } : null,
    attempts: r.attempts.map((a) => ({
      target_path: none(a.targetPath),
      provider: none(a.provider?.slug),
      ai_service: none(a.provider?.type),
      model: none(a.model),
      status_code: a.statusCode,
      started_at: iso(a.startedAtMs),
      latency_ms: ms(a.latencyUs),
      retry_index: a.retryIndex,
      error: a.error ? { code: a.error.code, message: a.error.message } : null,
    })),
    // MCP requests (`/v1/mcp/<slug>`): the server, the JSON-RPC method and tool; null otherwise.
    mcp: r.mcp
      ? {
          server_id: r.mcp.serverId,
          server_slug: r.mcp.serverSlug,
          mcp_integration_id: r.mcp.mcpIntegrationId,
          rpc_method: none(r.mcp.rpcMethod),
          tool: none(r.mcp.tool),
          rpc_error_code: r.mcp.rpcErrorCode === 0 ? null : r.mcp.rpcErrorCode,
        }
      : null,
    guardrail_results: r.guardrailResults.map((g) => ({
      guardrail_id: none(g.guardrailId),
      stage: g.stage === 1 ? 'input' : g.stage === 2 ? 'output' : null,
      verdict: g.verdict,
      denied: g.denied,
      latency_ms: ms(g.latencyUs),
      checks: g.checks.map((c) => ({
        id: c.checkId,
        verdict: c.verdict,
        explanation: none(c.explanation),
        errored: c.errored,
      })),
    })),
  };
  if (!detail) return out;
  return {
    ...out,
    log_format: detail.logFormat,
    request: bodyToApi(r.requestBody),
    response: bodyToApi(r.responseBody),
    feedback: entry.feedback.map(feedbackToApi),
  };
}

export function auditToApi(e: AuditEvent) {
  let details: unknown = e.requestDetailsJson;
  try {
    details = JSON.parse(e.requestDetailsJson);
    if (jsonDeeperThan(details, MAX_JSON_DEPTH)) details = e.requestDetailsJson;
  } catch {
    // kept as text
  }
  return {
    id: e.id,
    object: 'audit-log' as const,
    timestamp: iso(e.occurredAtMs),
    organisation_id: none(e.organisationId),
    workspace_id: none(e.workspaceId),
    actor: actorToApi(e.actor),
    action: e.action,
    resource_type: e.resourceType,
    resource_id: none(e.resourceId),
    ip: none(e.ip),
    user_agent: none(e.userAgent),
    method: none(e.requestMethod),
    path: none(e.requestPath),
    request_details: details,
    status: enumName(auditOutcomeToJSON(e.outcome), 'AUDIT_OUTCOME_'),
    status_code: e.statusCode,
    trace_id: none(e.traceId),
  };
}

// Response schemas: they document the shapes in OpenAPI (responses are not re-validated).
const nullableString = z.string().nullable();
export const actorSchema = z.object({
  type: z.string(),
  user_id: nullableString,
  api_key_id: nullableString,
  display_name: nullableString,
});
export const feedbackSchema = z.object({
  id: z.uuid(),
  object: z.literal('feedback'),
  trace_id: z.string(),
  value: z.number().int(),
  weight: z.number(),
  metadata: z.record(z.string(), z.string()),
  workspace_id: nullableString,
  created_by: actorSchema,
  created_at: z.string(),
  last_updated_at: z.string(),
});
export const logSchema = z
  .object({
    id: z.uuid(),
    object: z.literal('log'),
    trace_id: nullableString,
    created_at: z.string(),
    workspace_id: nullableString,
    api_key_id: nullableString,
    ai_service: nullableString,
    provider: nullableString,
    model: nullableString,
    status_code: z.number().int(),
    cache_status: z.string(),
    tokens: z.object({ input: z.number(), output: z.number(), total: z.number() }).loose(),
    cost: z.number(),
    latency_ms: z.number(),
    metadata: z.record(z.string(), z.string()),
    mcp: z
      .object({
        server_id: z.string(),
        server_slug: z.string(),
        mcp_integration_id: z.string(),
        rpc_method: nullableString,
        tool: nullableString,
        rpc_error_code: z.number().int().nullable(),
      })
      .nullable()
      .optional(),
  })
  .loose();
export const logDetailSchema = logSchema
  .extend({
    log_format: z.string(),
    request: z.object({}).loose().nullable(),
    response: z.object({}).loose().nullable(),
    feedback: z.array(feedbackSchema),
  })
  .loose();
export const auditSchema = z
  .object({
    id: z.uuid(),
    object: z.literal('audit-log'),
    timestamp: z.string(),
    /** Null: an unattributed record (a refused credential whose organisation is unknown). */
    organisation_id: nullableString,
    actor: actorSchema,
    action: z.string(),
    resource_type: z.string(),
    resource_id: nullableString,
    ip: nullableString,
    status: z.string(),
    status_code: z.number().int(),
  })
  .loose();
