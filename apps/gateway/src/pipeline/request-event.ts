// Builds the RequestEvent of one proxied request from what the pipeline observed.
import {
  type Attempt,
  CacheStatus,
  type McpCall,
  type RequestEvent,
  SCHEMA_VERSION,
  type UsageCharge,
} from '@aigw/proto';
import type { RequestAccess } from '../access/index.js';
import { bodyModel } from '../formats/index.js';
import type { MediaCharge } from '../formats/media-charge.js';
import { requestCost } from '../limits/index.js';
import type { RoutingFacts } from '../routing/event-facts.js';
import type { BodyCapture } from '../upstream/capture.js';
import type { ForwardResult } from '../upstream/forward.js';
import { estimateUsage, isRetrieval, type ResponseFacts, readResponseFacts } from '../upstream/usage.js';

export interface RequestFacts {
  readonly id: string;
  readonly traceId: string;
  readonly receivedAt: number;
  readonly method: string;
  readonly path: string;
  readonly provider: string;
  readonly customHost: string;
  readonly metadata: Readonly<Record<string, string>>;
  readonly instanceId: string;
  readonly requestContentType: string | undefined;
  readonly request: BodyCapture;
  readonly response: BodyCapture;
  readonly captureBodies: boolean;
  /** Set when the gateway answered itself before reaching the provider. */
  readonly gatewayError?: { code: string; message: string; type: string; status: number };
  /** Requests with a config: every attempt, the cache outcome, guardrail results. */
  readonly routing?: RoutingFacts;
  /** Control-plane mode: who called and which saved entities the request used. */
  readonly identity?: Partial<Pick<RequestEvent, IdentityField>>;
  /** A managed provider (`@slug`, virtual key): its slug and entity ids. */
  readonly providerRef?: {
    readonly slug: string;
    readonly providerId: string;
    readonly integrationId: string;
  };
  /**
   * Set once the limits engine admitted the request: the budget counters it charged (read when
   * the event is built, after settle).
   */
  readonly usageCharges?: () => readonly UsageCharge[];
  /**
   * Control-plane mode: the request's snapshot and organisation, which price its usage (the pricing
   * row of the provider type and model that answered): reported usage, and the tokenizer's estimate
   * of a model call that reported none (pipeline/estimate-answer.ts), which budgets charge too.
   */
  readonly pricing?: Pick<RequestAccess, 'snapshot' | 'identity'>;
  /**
   * The media units (images, speech characters, audio seconds) a successful image or audio call is
   * charged, and the model they are priced as (settle.ts, the same units budgets settle with).
   */
  readonly media?: MediaCharge;
  /** The sealed response's facts when settle already read them (read here otherwise). */
  readonly responseFacts?: ResponseFacts;
  /** The JSON request body's `model` when the pipeline parsed the body (it is parsed here otherwise). */
  readonly modelRequested?: string;
  /** A saved-prompt completion: the prompt, the version rendered and the label the request named. */
  readonly prompt?: { readonly id: string; readonly version: number; readonly label: string };
  /** MCP requests: the server and the JSON-RPC method and tool (mcp-route.ts, call-mcp.ts). */
  readonly mcp?: McpCall;
}

type IdentityField =
  | 'organisationId'
  | 'workspaceId'
  | 'apiKeyId'
  | 'userId'
  | 'virtualKeyId'
  | 'configId'
  | 'configVersion';

function requestModel(contentType: string | undefined, body: Buffer | undefined): string {
  if (!body || !contentType?.includes('json')) return '';
  try {
    return jsonModel(JSON.parse(body.toString('utf8')));
  } catch {
    return '';
  }
}

/** A parsed JSON request body's `model` as events report it ('' when it names none). */
export function jsonModel(json: unknown): string {
  return bodyModel(json)?.slice(0, 256) ?? '';
}

/**
 * Wall-clock milliseconds as the unsigned microseconds the contract wants: a clock step backwards
 * must give 0, not a negative number that would make the whole event unencodable.
 */
function micros(ms: number): number {
  return ms > 0 ? Math.round(ms * 1000) : 0;
}

/**
 * `completedAt`: when the response was complete (now by default; the event may be built later).
 * Built as a whole RequestEvent literal rather than through `fromPartial`, which walks and copies
 * every field again: the type makes the literal name every field, so a new one cannot be missed.
 */
export function buildRequestEvent(
  facts: RequestFacts,
  result: ForwardResult | undefined,
  completedAt: number = Date.now(),
): RequestEvent {
  const responseType = result?.contentType;
  const isStream = responseType?.startsWith('text/event-stream') ?? false;
  const responseFacts =
    facts.responseFacts ??
    readResponseFacts(responseType, facts.response.complete(), facts.response.tail(), facts.method);
  const ok = result !== undefined && result.status >= 200 && result.status < 300;
  // MCP messages are not model tokens, nor is a retrieval's answer (a listing, a file): nothing is
  // estimated for them.
  const usage =
    responseFacts.usage ??
    (ok && !facts.mcp && !isRetrieval(facts.method)
      ? estimateUsage(facts.request.total, facts.response.total)
      : undefined);
  const error = facts.gatewayError ?? result?.error;
  const upstreamUs = result?.endedAt ? micros(result.endedAt - result.upstreamStartedAt) : 0;
  const ref = facts.providerRef;
  const provider = {
    type: facts.provider,
    slug: ref?.slug ?? '',
    providerId: ref?.providerId ?? '',
    integrationId: ref?.integrationId ?? '',
    customHost: facts.customHost,
  };
  const who = facts.identity;
  const routing = facts.routing;
  const modelRequested =
    facts.modelRequested ?? requestModel(facts.requestContentType, facts.request.complete());
  const modelServed = responseFacts.model ?? '';
  const media = facts.media;
  const cost =
    facts.pricing && (responseFacts.usage || media)
      ? requestCost(facts.pricing.snapshot, facts.pricing.identity.organisation.id, {
          inputTokens: responseFacts.usage?.inputTokens ?? 0,
          outputTokens: responseFacts.usage?.outputTokens ?? 0,
          cachedInputTokens: responseFacts.usage?.cachedInputTokens,
          model: modelServed || modelRequested || (media?.model ?? ''),
          provider: facts.provider,
          media: media?.units,
        })
      : undefined;
  let attempts: Attempt[] = [];
  if (routing) attempts = [...routing.attempts];
  else if (result) {
    attempts = [
      {
        targetPath: 'provider',
        provider: { ...provider },
        model: '',
        statusCode: result.status,
        startedAtMs: result.upstreamStartedAt,
        latencyUs: upstreamUs,
        retryIndex: 0,
        error: result.error
          ? { code: result.error.code, message: result.error.message, type: result.error.type }
          : undefined,
      },
    ];
  }
  return {
    schemaVersion: SCHEMA_VERSION,
    id: facts.id,
    traceId: facts.traceId,
    spanId: '',
    parentSpanId: '',
    receivedAtMs: facts.receivedAt,
    upstreamStartedAtMs: result?.upstreamStartedAt ?? 0,
    upstreamFirstByteAtMs: result?.firstByteAt ?? 0,
    upstreamEndedAtMs: result?.endedAt ?? 0,
    completedAtMs: completedAt,
    organisationId: who?.organisationId ?? '',
    workspaceId: who?.workspaceId ?? '',
    apiKeyId: who?.apiKeyId ?? '',
    userId: who?.userId ?? '',
    provider,
    virtualKeyId: who?.virtualKeyId ?? '',
    configId: who?.configId ?? '',
    configVersion: who?.configVersion ?? 0,
    modelRequested,
    modelServed,
    method: facts.method,
    path: facts.path,
    statusCode: facts.gatewayError?.status ?? result?.status ?? 0,
    isStream,
    cacheStatus: routing?.cacheStatus ?? CacheStatus.DISABLED,
    attempts,
    tokens: media?.estimated && usage ? { ...usage, estimated: true } : usage,
    cost,
    metadata: { ...facts.metadata },
    guardrailResults: routing ? [...routing.guardrailResults] : [],
    requestBody:
      facts.captureBodies && facts.request.total > 0
        ? {
            data: facts.request.head(),
            truncated: facts.request.truncated,
            sizeBytes: facts.request.total,
            contentType: facts.requestContentType ?? '',
          }
        : undefined,
    responseBody:
      facts.captureBodies && result
        ? {
            data: facts.response.head(),
            truncated: facts.response.truncated,
            sizeBytes: facts.response.total,
            contentType: responseType ?? '',
          }
        : undefined,
    error: error ? { code: error.code, message: error.message, type: error.type } : undefined,
    gatewayInstanceId: facts.instanceId,
    latency: {
      totalUs: micros(completedAt - facts.receivedAt),
      upstreamUs,
      timeToFirstByteUs: result?.firstByteAt ? micros(result.firstByteAt - result.upstreamStartedAt) : 0,
      gatewayOverheadUs: result ? micros(result.upstreamStartedAt - facts.receivedAt) : 0,
      authUs: 0,
      limitsUs: 0,
      cacheUs: 0,
      guardrailsUs: 0,
    },
    promptId: facts.prompt?.id ?? '',
    promptVersion: facts.prompt?.version ?? 0,
    promptLabel: facts.prompt?.label ?? '',
    requestSizeBytes: facts.request.total,
    responseSizeBytes: facts.response.total,
    usageCharges: facts.usageCharges ? [...facts.usageCharges()] : [],
    usageChargesReported: facts.usageCharges !== undefined,
    mcp: facts.mcp ? { ...facts.mcp } : undefined,
    // Set by the publisher's tracing wrapper (events/trace-parent.ts) when tracing is on.
    traceParent: '',
  };
}
