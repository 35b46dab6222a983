// `/v1/*`: every provider endpoint and method, forwarded unchanged. Stages: service headers ->
// (with a control plane: API key or JWT, then `@slug` / virtual key / saved config from the snapshot)
// -> provider and target (custom host checked against SSRF) -> upstream -> request event. A request
// with a config takes the config branch instead (routing/: strategy, cache, guardrails).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LookupFunction } from 'node:net';
import type { RequestEvent, UsageCharge } from '@aigw/proto';
import { AppError, type Logger } from '@aigw/runtime';
import type { Redis } from 'ioredis';
import {
  admissionHeaders,
  assertModelAllowed,
  cloudFor,
  eventIdentity,
  eventProviderRef,
  limitSubject,
  managedRef,
  needsModel,
  type RequestAccess,
  type ResolveAccess,
  requestEstimate,
  requestModel,
  settledUsage,
  usageOf,
} from '../auth/index.js';
import type { GatewayConfig } from '../config.js';
import { gatewayError } from '../errors.js';
import type { ActualUsage, Admission, Limits } from '../limits/index.js';
import { readCloudOptions } from '../providers/cloud-headers.js';
import type { ProviderRequest } from '../providers/types.js';
import { H, parseServiceHeaders } from '../request/service-headers.js';
import { readConfigHeader } from '../routing/config-header.js';
import { createConfigRoute } from '../routing/config-route.js';
import { BodyCapture } from './capture.js';
import { CustomHostCache } from './custom-host-cache.js';
import { type ForwardResult, forward } from './forward.js';
import { clientHeadersForProvider, upstreamHeaders } from './headers.js';
import { readBody, readJsonBody } from './read-body.js';
import { buildRequestEvent, jsonModel, type RequestFacts } from './request-event.js';
import { bearer, resolveProvider } from './target.js';
import { readResponseFacts } from './usage.js';

export interface PassThroughDeps {
  readonly config: GatewayConfig;
  /** Takes the event as a function: the publisher builds it off the request path, in a batch. */
  readonly publish: (event: () => RequestEvent) => void;
  readonly instanceId: string;
  readonly log: Logger;
  /** Response cache storage shared by replicas (configs with `cache`); in-process without it. */
  readonly redis?: Redis | undefined;
  /**
   * Control-plane mode: resolves the key, managed provider or saved config of a request from the
   * snapshot (`accessFromConfig`, one per process). Without it (standalone) none of that runs and
   * `x-service-api-key` is not checked.
   */
  readonly access?: ResolveAccess | undefined;
  /** Rate and usage limits (limits/); applied in control-plane mode only. */
  readonly limits?: Limits | undefined;
}

export const V1 = '/v1';

/** Parsing headroom for the model and usage even when bodies are not kept in events. */
const MIN_CAPTURE = 64 * 1024;

/** Handles one request whose URL is below `/v1` (the caller strips nothing: the prefix is removed here). */
export type PassThroughHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * A plain node:http handler, not an express one: the data plane is the hot path, and express's
 * router and request/response decoration cost more than everything this handler does itself.
 */
export function passThrough(deps: PassThroughDeps): PassThroughHandler {
  const { config } = deps;
  const captureLimit = Math.max(config.CAPTURE_BODY_MAX_BYTES, MIN_CAPTURE);
  const customHosts = new CustomHostCache(config.CUSTOM_HOST_ALLOWLIST);
  const configRoute = createConfigRoute({
    config,
    redis: deps.redis,
    log: deps.log,
    customHosts,
    limits: deps.limits,
  });
  const resolveAccess = deps.access;

  return async (req, res) => {
    const receivedAt = Date.now();
    const id = randomUUID();
    const request = new BodyCapture(captureLimit);
    const response = new BodyCapture(captureLimit);
    const method = req.method ?? 'GET';
    // Path up to the first `?`, query all the rest: a later `?` belongs to the query and is
    // forwarded with it (`split('?', 2)` used to drop everything after a second one).
    const url = req.url ?? '/';
    const mark = url.indexOf('?', V1.length);
    const path = mark < 0 ? url.slice(V1.length) : url.slice(V1.length, mark);
    const query = mark < 0 ? '' : url.slice(mark + 1);
    const facts: { -readonly [K in keyof RequestFacts]: RequestFacts[K] } = {
      id,
      traceId: '',
      provider: '',
      customHost: '',
      metadata: {},
      receivedAt,
      method,
      path,
      instanceId: deps.instanceId,
      requestContentType: req.headers['content-type'],
      request,
      response,
      captureBodies: config.CAPTURE_BODY_MAX_BYTES > 0,
    };
    let result: ForwardResult | undefined;
    /** Limits admitted this request: settled with the answer's usage once it is complete. */
    let admission: Admission | undefined;
    /** A config's targets' own admissions (routing/target-admissions.ts): reported with the request's. */
    let targetCharges: (() => readonly UsageCharge[]) | undefined;
    /** The provider's answer a config held for output guardrails: its usage, whatever the client got. */
    let heldAnswer: { readonly contentType: string | undefined; readonly body: Buffer } | undefined;
    let model = '';
    try {
      const service = parseServiceHeaders(req.headers);
      // The trace id and provider headers go out with the response (forward puts them first) or
      // with the error below; not set here, so that writeHead takes node's fast path.
      facts.traceId = service.traceId;
      facts.metadata = service.metadata;
      let access: RequestAccess | undefined;
      if (resolveAccess) {
        const pending = resolveAccess(req.headers, service);
        access = pending instanceof Promise ? await pending : pending;
        facts.metadata = access.metadata;
        facts.captureBodies &&= access.captureBodies;
        facts.identity = eventIdentity(access);
        facts.providerRef = eventProviderRef(managedRef(access.route, access));
        facts.pricing = access;
      }
      const routed = access
        ? access.route.kind === 'config'
          ? access.route.config
          : undefined
        : req.headers[H.config] === undefined
          ? undefined
          : readConfigHeader(req.headers);
      const limits = access && deps.limits;
      if (routed) {
        let preread: { body: Buffer; json: unknown } | undefined;
        if (limits && access) {
          // The config's targets decide the provider: the request-level subject names none, and
          // each call of a target is admitted for its provider (routing/target-admissions.ts).
          preread = await readJsonBody(req, config.MAX_BODY_BYTES);
          if (preread.json !== undefined) facts.modelRequested = jsonModel(preread.json);
          model = requestModel(path, req.headers['content-type'], preread.body, preread.json);
          const subject = limitSubject(access, '', model);
          admission = await limits.admit(
            access.snapshot,
            subject,
            requestEstimate(preread.json, preread.body.length),
          );
          const extra = admissionHeaders(admission);
          for (const name in extra) res.setHeader(name, extra[name] as string);
        }
        const served = await configRoute(req, res, routed, {
          method,
          path,
          search: query ? `?${query}` : '',
          service,
          requestSink: request,
          responseSink: response,
          managed: access?.leaves,
          metadata: facts.metadata,
          preread,
        });
        facts.provider = served.provider;
        facts.customHost = served.customHost;
        // The target that answered, not the provider the headers named.
        if (access) facts.providerRef = eventProviderRef(served.providerRef);
        facts.routing = served.routing;
        if (served.gatewayError) facts.gatewayError = served.gatewayError;
        targetCharges = served.targetCharges;
        heldAnswer = served.heldAnswer;
        result = served.result;
      } else {
        const managed = access?.route.kind === 'managed' ? access.route.target : undefined;
        const provider = managed
          ? managed.provider
          : resolveProvider(service.provider, service.customHost !== undefined);
        facts.provider = provider.id;

        const declared = Number(req.headers['content-length'] ?? 0);
        if (declared > config.MAX_BODY_BYTES) {
          throw gatewayError(
            'payload_too_large',
            `The request body is larger than ${config.MAX_BODY_BYTES} bytes`,
          );
        }
        let customHost: URL | undefined;
        let lookup: LookupFunction | undefined;
        // A managed provider's host is its own (credential-route.ts refuses a custom host header).
        const hostToCheck = managed ? managed.options.customHost : service.customHost;
        if (hostToCheck !== undefined) {
          const checked =
            customHosts.cached(hostToCheck) ??
            (await customHosts.check(hostToCheck, service.requestTimeoutMs));
          customHost = checked.url;
          facts.customHost = customHost.origin;
          lookup = checked.lookup;
        }
        let base: Omit<ProviderRequest, 'json' | 'body'> = {
          method,
          path,
          search: query ? `?${query}` : '',
          headers: req.headers,
          token: managed ? managed.token : bearer(req.headers.authorization),
          cloud: managed
            ? cloudFor(managed, readCloudOptions(req.headers), '')
            : readCloudOptions(req.headers),
          customHost,
        };
        let body: Buffer | undefined;
        let json: unknown;
        if (
          provider.needsBody(base) ||
          (managed && needsModel(managed)) ||
          (limits && req.headers['content-type']?.includes('json'))
        ) {
          body = await readBody(req, config.MAX_BODY_BYTES);
          if (body.length > 0 && req.headers['content-type']?.includes('json')) {
            try {
              json = JSON.parse(body.toString('utf8'));
            } catch {
              throw gatewayError('invalid_json', 'The request body is not valid JSON');
            }
            facts.modelRequested = jsonModel(json);
          }
        }
        if (managed && needsModel(managed)) {
          const asked = requestModel(path, req.headers['content-type'], body, json);
          assertModelAllowed(managed, asked, 'model');
          base = { ...base, cloud: cloudFor(managed, readCloudOptions(req.headers), asked) };
        }
        let limitHeaders: Readonly<Record<string, string>> | undefined;
        if (limits && access) {
          model = requestModel(path, req.headers['content-type'], body, json);
          const subject = limitSubject(access, provider.id, model);
          admission = await limits.admit(
            access.snapshot,
            subject,
            requestEstimate(json, body?.length ?? declared),
          );
          limitHeaders = admissionHeaders(admission);
        }
        // Spelled out rather than `{ ...base, body, json }`: that spread was a slow object on this
        // path (about 3 µs a request in a profile of full enforcement, which reads every body).
        const target = provider.buildTarget(
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
                json,
              }
            : base,
        );
        const headers = upstreamHeaders(
          clientHeadersForProvider(req.headers),
          target,
          service.forwardHeaders,
        );
        // Secret custom headers of the managed credentials win over the client's.
        if (managed) Object.assign(headers, managed.setHeaders);
        result = await forward(res, {
          method,
          url: target.url,
          headers,
          body: body ?? req,
          lookup,
          timeoutMs: service.requestTimeoutMs,
          idleTimeoutMs: config.UPSTREAM_TIMEOUT_MS,
          maxBodyBytes: config.MAX_BODY_BYTES,
          extraResponseHeaders: responseExtras(limitHeaders, service.traceId, provider.id),
          requestSink: request,
          responseSink: response,
        });
      }
    } catch (err) {
      const error =
        err instanceof AppError
          ? err
          : gatewayError('bad_request', 'The request could not be processed', { cause: err });
      if (!(err instanceof AppError)) deps.log.error({ err, reqId: id }, 'pass-through failed');
      facts.gatewayError = {
        code: error.code ?? 'error',
        message: error.message,
        type: error.type,
        status: error.status,
      };
      if (!res.headersSent) {
        // Both are never empty once known (a trace id is 1-128 characters, a provider id a name).
        if (facts.traceId !== '') res.setHeader(H.traceId, facts.traceId);
        if (facts.provider !== '') res.setHeader('x-service-provider', facts.provider);
        res.writeHead(error.status, { ...error.headers, 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(error.toBody()));
      }
      // Drain an unread body so the connection can be reused.
      if (!req.readableEnded) req.resume();
    }
    // The response is complete (forward resolves on close): this is off the client's path. The
    // event is built later, by the publisher: freeze now what it reports (a late 'aborted' or body
    // chunk after the close must not change it).
    const completedAt = Date.now();
    request.seal();
    response.seal();
    const outcome = result && { ...result };
    if (admission) {
      let usage: ActualUsage | undefined;
      if (heldAnswer) {
        usage = settledUsage(heldAnswer.contentType, heldAnswer.body, heldAnswer.body, model, facts.provider);
      } else if (outcome) {
        // Read once: the request event reuses it (the capture is sealed, so it would read the same).
        const read = readResponseFacts(
          outcome.responseHeaders['content-type'],
          response.complete(),
          response.tail(),
        );
        facts.responseFacts = read;
        usage = usageOf(read, model, facts.provider);
      }
      void admission.settle(usage);
      const charges = admission.usageCharges;
      const targets = targetCharges;
      facts.usageCharges = targets ? () => [...charges(), ...targets()] : charges;
    }
    deps.publish(() => buildRequestEvent(facts, outcome, completedAt));
  };
}

/** The admission's headers, then the trace id and provider (added in place: a spread was slower). */
function responseExtras(
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
