// Builds the RequestEvent of one proxied request from what the pipeline observed.
import { CacheStatus, RequestEvent, SCHEMA_VERSION } from '@aigw/proto';
import type { RoutingFacts } from '../routing/event-facts.js';
import type { BodyCapture } from './capture.js';
import type { ForwardResult } from './forward.js';
import { estimateUsage, readResponseFacts } from './usage.js';

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
}

function requestModel(contentType: string | undefined, body: Buffer | undefined): string {
  if (!body || !contentType?.includes('json')) return '';
  try {
    const model = (JSON.parse(body.toString('utf8')) as { model?: unknown }).model;
    return typeof model === 'string' ? model.slice(0, 256) : '';
  } catch {
    return '';
  }
}

/**
 * Wall-clock milliseconds as the unsigned microseconds the contract wants: a clock step backwards
 * must give 0, not a negative number that would make the whole event unencodable.
 */
function micros(ms: number): number {
  return ms > 0 ? Math.round(ms * 1000) : 0;
}

/** `completedAt`: when the response was complete (now by default; the event may be built later). */
export function buildRequestEvent(
  facts: RequestFacts,
  result: ForwardResult | undefined,
  completedAt: number = Date.now(),
): RequestEvent {
  const responseType = result?.responseHeaders['content-type'];
  const isStream = responseType?.startsWith('text/event-stream') ?? false;
  const responseFacts = readResponseFacts(responseType, facts.response.complete(), facts.response.tail());
  const ok = result !== undefined && result.status >= 200 && result.status < 300;
  const usage =
    responseFacts.usage ?? (ok ? estimateUsage(facts.request.total, facts.response.total) : undefined);
  const error = facts.gatewayError ?? result?.error;
  const upstreamUs = result?.endedAt ? micros(result.endedAt - result.upstreamStartedAt) : 0;
  return RequestEvent.fromPartial({
    schemaVersion: SCHEMA_VERSION,
    id: facts.id,
    traceId: facts.traceId,
    receivedAtMs: facts.receivedAt,
    upstreamStartedAtMs: result?.upstreamStartedAt ?? 0,
    upstreamFirstByteAtMs: result?.firstByteAt ?? 0,
    upstreamEndedAtMs: result?.endedAt ?? 0,
    completedAtMs: completedAt,
    provider: { type: facts.provider, customHost: facts.customHost },
    modelRequested: requestModel(facts.requestContentType, facts.request.complete()),
    modelServed: responseFacts.model ?? '',
    method: facts.method,
    path: facts.path,
    statusCode: facts.gatewayError?.status ?? result?.status ?? 0,
    isStream,
    cacheStatus: facts.routing?.cacheStatus ?? CacheStatus.DISABLED,
    attempts: facts.routing
      ? [...facts.routing.attempts]
      : result
        ? [
            {
              targetPath: 'provider',
              provider: { type: facts.provider, customHost: facts.customHost },
              statusCode: result.status,
              startedAtMs: result.upstreamStartedAt,
              latencyUs: upstreamUs,
              ...(result.error ? { error: result.error } : {}),
            },
          ]
        : [],
    ...(facts.routing ? { guardrailResults: [...facts.routing.guardrailResults] } : {}),
    ...(usage ? { tokens: usage } : {}),
    metadata: { ...facts.metadata },
    ...(facts.captureBodies && facts.request.total > 0
      ? {
          requestBody: {
            data: facts.request.head(),
            truncated: facts.request.truncated,
            sizeBytes: facts.request.total,
            contentType: facts.requestContentType ?? '',
          },
        }
      : {}),
    ...(facts.captureBodies && result
      ? {
          responseBody: {
            data: facts.response.head(),
            truncated: facts.response.truncated,
            sizeBytes: facts.response.total,
            contentType: responseType ?? '',
          },
        }
      : {}),
    ...(error ? { error: { code: error.code, message: error.message, type: error.type } } : {}),
    gatewayInstanceId: facts.instanceId,
    latency: {
      totalUs: micros(completedAt - facts.receivedAt),
      upstreamUs,
      timeToFirstByteUs: result?.firstByteAt ? micros(result.firstByteAt - result.upstreamStartedAt) : 0,
      gatewayOverheadUs: result ? micros(result.upstreamStartedAt - facts.receivedAt) : 0,
    },
    requestSizeBytes: facts.request.total,
    responseSizeBytes: facts.response.total,
  });
}
