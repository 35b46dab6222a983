// RequestEvent and its submessages written by hand, field by field in ts-proto's order and with its
// rules (proto3 defaults skipped, map entries as key/value messages), so the bytes are the generated
// encode's: event-encoder.test.ts checks them against it, and that every field is covered. A value
// the writer does not take itself (a negative int64, a non-integer) throws Unusual: the caller
// encodes that event with ts-proto, which encodes it or throws as it always did.
import type {
  Attempt,
  CapturedBody,
  Cost,
  GatewayError,
  GuardrailCheckResult,
  GuardrailFeedback,
  GuardrailResult,
  LatencyBreakdown,
  McpCall,
  ProviderRef,
  RequestEvent,
  TokenUsage,
  UsageCharge,
} from '@aigw/proto';
import { type ProtoWriter, Unusual } from './proto-writer.js';

const UNUSUAL = new Unusual('value outside the hand-written encoder');

/** Tag of field `n` with wire type `wire` (0 varint, 2 length-delimited). */
const t = (n: number, wire: 0 | 1 | 2) => (n << 3) | wire;

/** Field names each writer covers, in field-number order (the test compares them with ts-proto's). */
export const COVERED = {
  ProviderRef: ['type', 'slug', 'providerId', 'integrationId', 'customHost'],
  GatewayError: ['code', 'message', 'type'],
  Attempt: [
    'targetPath',
    'provider',
    'model',
    'statusCode',
    'startedAtMs',
    'latencyUs',
    'retryIndex',
    'error',
  ],
  GuardrailCheckResult: ['checkId', 'verdict', 'explanation', 'latencyUs', 'errored'],
  GuardrailResult: ['guardrailId', 'stage', 'verdict', 'denied', 'latencyUs', 'checks', 'feedback'],
  GuardrailFeedback: ['value', 'weight'],
  CapturedBody: ['data', 'truncated', 'sizeBytes', 'contentType'],
  LatencyBreakdown: [
    'totalUs',
    'upstreamUs',
    'timeToFirstByteUs',
    'gatewayOverheadUs',
    'authUs',
    'limitsUs',
    'cacheUs',
    'guardrailsUs',
  ],
  TokenUsage: ['inputTokens', 'outputTokens', 'totalTokens', 'cachedInputTokens', 'estimated'],
  Cost: ['amountMicros', 'currency'],
  UsageCharge: [
    'ownerKind',
    'ownerId',
    'groupValue',
    'measure',
    'periodStartMs',
    'periodEndMs',
    'counterKey',
    'amount',
  ],
  McpCall: ['serverId', 'serverSlug', 'mcpIntegrationId', 'rpcMethod', 'tool', 'rpcErrorCode'],
} as const;

function providerRef(w: ProtoWriter, tag: number, m: ProviderRef | undefined): void {
  if (m === undefined) return;
  const at = w.open(tag);
  w.string(t(1, 2), m.type);
  w.string(t(2, 2), m.slug);
  w.string(t(3, 2), m.providerId);
  w.string(t(4, 2), m.integrationId);
  w.string(t(5, 2), m.customHost);
  w.close(at);
}

function gatewayError(w: ProtoWriter, tag: number, m: GatewayError | undefined): void {
  if (m === undefined) return;
  const at = w.open(tag);
  w.string(t(1, 2), m.code);
  w.string(t(2, 2), m.message);
  w.string(t(3, 2), m.type);
  w.close(at);
}

function attempt(w: ProtoWriter, tag: number, m: Attempt): void {
  const at = w.open(tag);
  w.string(t(1, 2), m.targetPath);
  providerRef(w, t(2, 2), m.provider);
  w.string(t(3, 2), m.model);
  w.uint32(t(4, 0), m.statusCode);
  w.uint53(t(5, 0), m.startedAtMs);
  w.uint53(t(6, 0), m.latencyUs);
  w.uint32(t(7, 0), m.retryIndex);
  gatewayError(w, t(8, 2), m.error);
  w.close(at);
}

function checkResult(w: ProtoWriter, tag: number, m: GuardrailCheckResult): void {
  const at = w.open(tag);
  w.string(t(1, 2), m.checkId);
  w.bool(t(2, 0), m.verdict);
  w.string(t(3, 2), m.explanation);
  w.uint53(t(4, 0), m.latencyUs);
  w.bool(t(5, 0), m.errored);
  w.close(at);
}

function guardrailResult(w: ProtoWriter, tag: number, m: GuardrailResult): void {
  const at = w.open(tag);
  w.string(t(1, 2), m.guardrailId);
  w.int32(t(2, 0), m.stage);
  w.bool(t(3, 0), m.verdict);
  w.bool(t(4, 0), m.denied);
  w.uint53(t(5, 0), m.latencyUs);
  for (const check of m.checks) checkResult(w, t(6, 2), check);
  guardrailFeedback(w, t(7, 2), m.feedback);
  w.close(at);
}

function guardrailFeedback(w: ProtoWriter, tag: number, m: GuardrailFeedback | undefined): void {
  if (m === undefined) return;
  if ((m.value | 0) !== m.value) throw UNUSUAL;
  const at = w.open(tag);
  // sint32: zigzag, so negative scores stay one byte.
  w.uint32(t(1, 0), ((m.value << 1) ^ (m.value >> 31)) >>> 0);
  w.double(t(2, 1), m.weight);
  w.close(at);
}

function capturedBody(w: ProtoWriter, tag: number, m: CapturedBody | undefined): void {
  if (m === undefined) return;
  const at = w.open(tag);
  w.bytes(t(1, 2), m.data);
  w.bool(t(2, 0), m.truncated);
  w.uint53(t(3, 0), m.sizeBytes);
  w.string(t(4, 2), m.contentType);
  w.close(at);
}

function latency(w: ProtoWriter, tag: number, m: LatencyBreakdown | undefined): void {
  if (m === undefined) return;
  const at = w.open(tag);
  w.uint53(t(1, 0), m.totalUs);
  w.uint53(t(2, 0), m.upstreamUs);
  w.uint53(t(3, 0), m.timeToFirstByteUs);
  w.uint53(t(4, 0), m.gatewayOverheadUs);
  w.uint53(t(5, 0), m.authUs);
  w.uint53(t(6, 0), m.limitsUs);
  w.uint53(t(7, 0), m.cacheUs);
  w.uint53(t(8, 0), m.guardrailsUs);
  w.close(at);
}

function tokenUsage(w: ProtoWriter, tag: number, m: TokenUsage | undefined): void {
  if (m === undefined) return;
  const at = w.open(tag);
  w.uint53(t(1, 0), m.inputTokens);
  w.uint53(t(2, 0), m.outputTokens);
  w.uint53(t(3, 0), m.totalTokens);
  w.uint53(t(4, 0), m.cachedInputTokens);
  w.bool(t(5, 0), m.estimated);
  w.close(at);
}

function cost(w: ProtoWriter, tag: number, m: Cost | undefined): void {
  if (m === undefined) return;
  const at = w.open(tag);
  w.uint53(t(1, 0), m.amountMicros);
  w.string(t(2, 2), m.currency);
  w.close(at);
}

function usageCharge(w: ProtoWriter, tag: number, m: UsageCharge): void {
  const at = w.open(tag);
  w.int32(t(1, 0), m.ownerKind);
  w.string(t(2, 2), m.ownerId);
  w.string(t(3, 2), m.groupValue);
  w.int32(t(4, 0), m.measure);
  w.uint53(t(5, 0), m.periodStartMs);
  w.uint53(t(6, 0), m.periodEndMs);
  w.string(t(7, 2), m.counterKey);
  w.uint53(t(8, 0), m.amount);
  w.close(at);
}

function mcpCall(w: ProtoWriter, tag: number, m: McpCall | undefined): void {
  if (m === undefined) return;
  if ((m.rpcErrorCode | 0) !== m.rpcErrorCode) throw UNUSUAL;
  const at = w.open(tag);
  w.string(t(1, 2), m.serverId);
  w.string(t(2, 2), m.serverSlug);
  w.string(t(3, 2), m.mcpIntegrationId);
  w.string(t(4, 2), m.rpcMethod);
  w.string(t(5, 2), m.tool);
  // sint32: zigzag, so JSON-RPC's negative codes stay short.
  w.uint32(t(6, 0), ((m.rpcErrorCode << 1) ^ (m.rpcErrorCode >> 31)) >>> 0);
  w.close(at);
}

/** Map entries in Object.entries order, each `{ key = 1, value = 2 }` with empty parts skipped. */
function metadata(w: ProtoWriter, tag: number, m: Readonly<Record<string, string>>): void {
  if (typeof m !== 'object' || m === null) throw UNUSUAL;
  for (const key in m) {
    if (!Object.hasOwn(m, key)) continue;
    const at = w.open(tag);
    w.string(t(1, 2), key);
    w.string(t(2, 2), m[key] as string);
    w.close(at);
  }
}

/** Field names of RequestEvent this writer covers (see COVERED). */
export const COVERED_EVENT_FIELDS = [
  'schemaVersion',
  'id',
  'traceId',
  'spanId',
  'parentSpanId',
  'receivedAtMs',
  'upstreamStartedAtMs',
  'upstreamFirstByteAtMs',
  'upstreamEndedAtMs',
  'completedAtMs',
  'organisationId',
  'workspaceId',
  'apiKeyId',
  'userId',
  'provider',
  'virtualKeyId',
  'configId',
  'configVersion',
  'modelRequested',
  'modelServed',
  'method',
  'path',
  'statusCode',
  'isStream',
  'cacheStatus',
  'attempts',
  'tokens',
  'cost',
  'metadata',
  'guardrailResults',
  'requestBody',
  'responseBody',
  'error',
  'gatewayInstanceId',
  'latency',
  'promptId',
  'requestSizeBytes',
  'responseSizeBytes',
  'usageCharges',
  'usageChargesReported',
  'promptVersion',
  'promptLabel',
  'mcp',
  'traceParent',
] as const;

/** The fields of one RequestEvent (without its own length prefix). Throws Unusual, see above. */
export function writeRequestEvent(w: ProtoWriter, e: RequestEvent): void {
  w.uint32(t(1, 0), e.schemaVersion);
  w.string(t(2, 2), e.id);
  w.string(t(3, 2), e.traceId);
  w.string(t(4, 2), e.spanId);
  w.string(t(5, 2), e.parentSpanId);
  w.uint53(t(6, 0), e.receivedAtMs);
  w.uint53(t(7, 0), e.upstreamStartedAtMs);
  w.uint53(t(8, 0), e.upstreamFirstByteAtMs);
  w.uint53(t(9, 0), e.upstreamEndedAtMs);
  w.uint53(t(10, 0), e.completedAtMs);
  w.string(t(11, 2), e.organisationId);
  w.string(t(12, 2), e.workspaceId);
  w.string(t(13, 2), e.apiKeyId);
  w.string(t(14, 2), e.userId);
  providerRef(w, t(15, 2), e.provider);
  w.string(t(16, 2), e.virtualKeyId);
  w.string(t(17, 2), e.configId);
  w.uint32(t(18, 0), e.configVersion);
  w.string(t(19, 2), e.modelRequested);
  w.string(t(20, 2), e.modelServed);
  w.string(t(21, 2), e.method);
  w.string(t(22, 2), e.path);
  w.uint32(t(23, 0), e.statusCode);
  w.bool(t(24, 0), e.isStream);
  w.int32(t(25, 0), e.cacheStatus);
  for (const a of e.attempts) attempt(w, t(26, 2), a);
  tokenUsage(w, t(27, 2), e.tokens);
  cost(w, t(28, 2), e.cost);
  metadata(w, t(29, 2), e.metadata);
  for (const g of e.guardrailResults) guardrailResult(w, t(30, 2), g);
  capturedBody(w, t(31, 2), e.requestBody);
  capturedBody(w, t(32, 2), e.responseBody);
  gatewayError(w, t(33, 2), e.error);
  w.string(t(34, 2), e.gatewayInstanceId);
  latency(w, t(35, 2), e.latency);
  w.string(t(36, 2), e.promptId);
  w.uint53(t(37, 0), e.requestSizeBytes);
  w.uint53(t(38, 0), e.responseSizeBytes);
  for (const c of e.usageCharges) usageCharge(w, t(39, 2), c);
  w.bool(t(40, 0), e.usageChargesReported);
  w.uint32(t(41, 0), e.promptVersion);
  w.string(t(42, 2), e.promptLabel);
  mcpCall(w, t(43, 2), e.mcp);
  w.string(t(44, 2), e.traceParent);
}
