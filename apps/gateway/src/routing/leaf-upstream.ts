// The upstream request of one config leaf: the body with the leaf's override_params, the provider's
// URL and headers for the leaf's credential and options, and the SSRF-checked custom host.
import type { OutgoingHttpHeaders } from 'node:http';
import type { LookupFunction } from 'node:net';
import type { EffectiveSettings } from '@aigw/config-schema';
import { type Translation, translationFor } from '../translate/translation.js';
import type { CustomHostCache } from '../upstream/custom-host-cache.js';
import { clientHeadersForProvider, upstreamHeaders } from '../upstream/headers.js';
import type { ConfigRequest } from './config-request.js';
import type { LeafTarget } from './leaf-target.js';

export interface UpstreamPlan {
  readonly url: URL;
  readonly headers: OutgoingHttpHeaders;
  /** The bytes sent: the client's, or the JSON body re-serialised with override_params. */
  readonly body: Buffer;
  readonly json: unknown;
  /** The body's `model` ('' when none). */
  readonly model: string;
  /** The model a managed Azure deployment serves (LeafTarget.servedModel): limits count it. */
  readonly servedModel: string | undefined;
  readonly lookup: LookupFunction | undefined;
  readonly customHostUrl: URL | undefined;
  readonly timeoutMs: number | undefined;
  /** Output guardrails read the answer: it is read whole before anything is sent. */
  readonly readsAnswer: boolean;
  /** The unified API's translation for this target (its answer is translated back): none = pass-through. */
  readonly translation: Translation | undefined;
}

type Json = Record<string, unknown>;

export function isJsonObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `override_params` merge shallowly into a JSON object body (the config's keys win). Other bodies
 * (multipart uploads, an empty GET) are sent as they came.
 */
export function withOverrides(
  body: Buffer,
  json: unknown,
  overrides: Readonly<Json> | undefined,
): { body: Buffer; json: unknown } {
  if (!overrides || Object.keys(overrides).length === 0 || !isJsonObject(json)) return { body, json };
  const merged = { ...json, ...overrides };
  return { body: Buffer.from(JSON.stringify(merged)), json: merged };
}

export async function prepareUpstream(
  request: ConfigRequest,
  target: LeafTarget,
  settings: EffectiveSettings,
  customHosts: CustomHostCache,
): Promise<UpstreamPlan> {
  let customHostUrl: URL | undefined;
  let lookup: LookupFunction | undefined;
  if (target.customHost !== undefined) {
    const checked =
      customHosts.cached(target.customHost) ?? (await customHosts.check(target.customHost, target.timeoutMs));
    customHostUrl = checked.url;
    lookup = checked.lookup;
  }
  const overridden = withOverrides(request.body, request.json, settings.override_params);
  const json = overridden.json;
  // The one rule of the unified API, per target: a fallback from OpenAI to Anthropic sends each its own shape.
  const translation = translationFor({
    method: request.method,
    path: request.path,
    providerId: target.provider.id,
    cloud: target.cloud,
    json,
  });
  const sent = translation?.request;
  const body = sent ? sent.body : overridden.body;
  const built = await target.provider.buildTarget({
    method: request.method,
    path: sent ? sent.path : request.path,
    search: sent ? sent.search : request.search,
    headers: request.headers,
    token: target.token,
    cloud: sent ? sent.cloud : target.cloud,
    customHost: customHostUrl,
    json: sent ? sent.routeJson : json,
    body,
  });
  const forwarded = target.forwardHeaders;
  const headers = upstreamHeaders(clientHeadersForProvider(request.headers), built, forwarded);
  for (const name in target.setHeaders) {
    if (!forwarded.includes(name)) headers[name] = target.setHeaders[name];
  }
  // The body is held whole (a chunked client body included): its length is known.
  if (body.length > 0 || headers['content-length'] !== undefined)
    headers['content-length'] = String(body.length);
  if (translation) {
    headers['content-type'] = 'application/json';
    // The answer is read to be translated: it must come unencoded.
    headers['accept-encoding'] = 'identity';
  }
  const readsAnswer = Boolean(settings.output_guardrails?.length);
  if (readsAnswer || settings.cache) plainAnswer(headers, forwarded);
  const model = isJsonObject(json) && typeof json.model === 'string' ? json.model.slice(0, 256) : '';
  return {
    url: built.url,
    headers,
    body,
    json,
    model,
    servedModel: target.servedModel,
    lookup,
    customHostUrl,
    timeoutMs: target.timeoutMs,
    readsAnswer,
    translation,
  };
}

/**
 * Asks for an unencoded answer (cache.md): a gzip body could not be read by guardrails, nor
 * replayed from the cache to a client that did not ask for gzip.
 */
export function plainAnswer(headers: OutgoingHttpHeaders, forwarded: readonly string[]): void {
  if (!forwarded.includes('accept-encoding')) headers['accept-encoding'] = 'identity';
}
