// Stage: a plain request's call: the provider's URL and headers, then the exchange, streamed both
// ways (upstream/forward.ts), with what stream-usage.ts added taken back out of the answer.
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { UpstreamTarget } from '../providers/types.js';
import { H, type ServiceHeaders } from '../request/service-headers.js';
import { teeTo } from '../translate/tee.js';
import type { Translation } from '../translate/translation.js';
import { forward } from '../upstream/forward.js';
import { clientHeadersForProvider, upstreamHeaders } from '../upstream/headers.js';
import type { PlainTarget, RequestContext } from './request-context.js';
import { injectedUsageFilter } from './stream-usage.js';

export interface CallDeps {
  readonly idleTimeoutMs: number;
  readonly maxBodyBytes: number;
}

export async function callUpstream(
  ctx: RequestContext,
  target: PlainTarget,
  deps: CallDeps,
  res: ServerResponse,
): Promise<void> {
  const service = ctx.service as ServiceHeaders;
  const { provider } = target;
  if (ctx.translation) return callTranslated(ctx, target, ctx.translation, deps, res);
  const body = ctx.body;
  // Spelled out rather than `{ ...base, body, json }`: that spread was a slow object on this path.
  const base = target.base;
  const upstream = await provider.buildTarget(
    body
      ? {
          method: base.method,
          path: base.path,
          search: base.search,
          headers: base.headers,
          token: base.token,
          cloud: base.cloud,
          customHost: base.customHost,
          body,
          json: ctx.json,
        }
      : base,
  );
  const headers = providerCallHeaders(ctx, target, upstream);
  if (ctx.usageInjected && body) headers['content-length'] = String(body.length);
  ctx.result = await forward(res, {
    method: ctx.method,
    url: upstream.url,
    headers,
    body: body ?? ctx.req,
    lookup: target.host?.lookup,
    timeoutMs: service.requestTimeoutMs,
    idleTimeoutMs: deps.idleTimeoutMs,
    maxBodyBytes: deps.maxBodyBytes,
    extraResponseHeaders: responseExtras(ctx.limitHeaders, service.traceId, provider.id),
    // With usage asked for, the body stage captured what the client sent instead.
    requestSink: ctx.usageInjected ? undefined : ctx.facts.request,
    responseSink: ctx.facts.response,
    responseFilter: ctx.usageInjected ? injectedUsageFilter : undefined,
  });
}

/**
 * A translated call (translate-request.ts): the provider's own request, and its answer (errors
 * included) translated back as it streams; the captured response is what the client received.
 */
async function callTranslated(
  ctx: RequestContext,
  target: PlainTarget,
  translation: Translation,
  deps: CallDeps,
  res: ServerResponse,
): Promise<void> {
  const service = ctx.service as ServiceHeaders;
  const { provider } = target;
  const base = target.base;
  const sent = translation.request;
  const upstream = await provider.buildTarget({
    method: base.method,
    path: sent.path,
    search: sent.search,
    headers: base.headers,
    token: base.token,
    cloud: sent.cloud,
    customHost: base.customHost,
    body: sent.body,
    json: sent.routeJson,
  });
  const headers = providerCallHeaders(ctx, target, upstream);
  headers['content-type'] = 'application/json';
  headers['content-length'] = String(sent.body.length);
  // The answer is read to be translated: it must come unencoded.
  headers['accept-encoding'] = 'identity';
  const sink = ctx.facts.response;
  ctx.result = await forward(res, {
    method: ctx.method,
    url: upstream.url,
    headers,
    body: sent.body,
    lookup: target.host?.lookup,
    timeoutMs: service.requestTimeoutMs,
    idleTimeoutMs: deps.idleTimeoutMs,
    maxBodyBytes: deps.maxBodyBytes,
    extraResponseHeaders: responseExtras(ctx.limitHeaders, service.traceId, provider.id),
    filterAllStatuses: true,
    responseFilter: (answerHeaders, status) => teeTo(translation.response(status, answerHeaders), sink),
  });
}

/**
 * The headers of a plain target's call: the client's, as the provider takes them (its own auth from
 * `upstream`, what it removes unless forwarded), then the managed credentials' secret custom headers,
 * which win over the client's.
 */
export function providerCallHeaders(
  ctx: RequestContext,
  target: PlainTarget,
  upstream: UpstreamTarget,
): OutgoingHttpHeaders {
  const headers = upstreamHeaders(
    clientHeadersForProvider(ctx.req.headers),
    upstream,
    (ctx.service as ServiceHeaders).forwardHeaders,
  );
  if (target.managed) Object.assign(headers, target.managed.setHeaders);
  return headers;
}

/** The admission's headers, then the trace id and provider (added in place: a spread was slower). */
export function responseExtras(
  limitHeaders: Readonly<Record<string, string>> | undefined,
  traceId: string,
  providerId: string,
): Record<string, string> {
  const extra: Record<string, string> = {};
  if (limitHeaders) for (const name in limitHeaders) extra[name] = limitHeaders[name] as string;
  extra[H.traceId] = traceId;
  extra['x-service-provider'] = providerId;
  return extra;
}
