// The typed context one request carries through the pipeline's stages (gateway-pipeline.ts): what
// each stage found, read by the later ones and, at the end, by the request event.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { NormalisedConfig } from '@aigw/config-schema';
import type { UsageCharge } from '@aigw/proto';
import type { ManagedTarget, RequestAccess } from '../access/index.js';
import type { Admission } from '../limits/index.js';
import type { ProviderDefinition, ProviderRequest } from '../providers/types.js';
import type { ServiceHeaders } from '../request/service-headers.js';
import type { Translation } from '../translate/translation.js';
import { BodyCapture } from '../upstream/capture.js';
import type { CheckedHost } from '../upstream/custom-host-cache.js';
import type { ForwardResult } from '../upstream/forward.js';
import type { ResponseFacts } from '../upstream/usage.js';
import type { RequestFacts } from './request-event.js';

/**
 * HTTP requests (plain or with a config), saved-prompt completions (`/prompts/{id}/completions`,
 * rendered into a chat-completions body), realtime WebSocket sessions, and MCP (`/v1/mcp/<slug>`).
 */
export type RequestKind = 'http' | 'prompt' | 'realtime' | 'mcp';

export type MutableFacts = { -readonly [K in keyof RequestFacts]: RequestFacts[K] };

/** Where the request goes, once resolved: a config's strategy or one provider target. */
export type Route =
  | { readonly kind: 'config'; readonly config: NormalisedConfig }
  | { readonly kind: 'target'; readonly target: PlainTarget };

/** One provider, its credentials and the checked custom host: what a plain request is sent to. */
export interface PlainTarget {
  readonly provider: ProviderDefinition;
  /** A managed provider (`@slug`) or virtual key; undefined with the client's own credential. */
  readonly managed: ManagedTarget | undefined;
  /** The provider request without its body (added by the body stage when read). */
  base: Omit<ProviderRequest, 'json' | 'body'>;
  /** The custom host as checked by the SSRF layer: connections go to its checked addresses only. */
  readonly host: CheckedHost | undefined;
}

export interface RequestContext {
  readonly id: string;
  readonly kind: RequestKind;
  readonly receivedAt: number;
  readonly req: IncomingMessage;
  readonly method: string;
  /** Below `/v1`, up to the first `?`. */
  readonly path: string;
  /** `?` and the rest (a later `?` belongs to the query), or ''. */
  readonly search: string;
  readonly facts: MutableFacts;
  service: ServiceHeaders | undefined;
  /** Control-plane mode: the caller and what the snapshot resolved for it. */
  access: RequestAccess | undefined;
  route: Route | undefined;
  /** The body, when a stage needed it; undefined while it streams through. */
  body: Buffer | undefined;
  json: unknown;
  /** A read upload's form fields (model, n, size, quality), read once, whole, by the body stage. */
  form: unknown;
  /** The model the request asks for ('' when none or not read). */
  model: string;
  admission: Admission | undefined;
  /** `x-ratelimit-*` and the degraded flag of the admission, for the response. */
  limitHeaders: Readonly<Record<string, string>> | undefined;
  result: ForwardResult | undefined;
  /** A config's targets' own admissions (routing/target-admissions.ts), reported with the request's. */
  targetCharges: (() => readonly UsageCharge[]) | undefined;
  /** The provider's answer a config held for output guardrails: its usage, whatever the client got. */
  heldAnswer: { readonly contentType: string | undefined; readonly body: Buffer } | undefined;
  /** The gateway asked the provider for stream usage the client did not ask for (stream-usage.ts). */
  usageInjected: boolean;
  /** Realtime: the budget counters its turns charged (its last admission is only released at the end). */
  turnCharges: (() => readonly UsageCharge[]) | undefined;
  /** Usage a stage read itself (the stream usage the client did not ask for, realtime turns). */
  usage: ResponseFacts | undefined;
  /** Claims of usage charged once (usage-claims.ts), by object id: one per request and object. */
  usageClaims: Map<string, Promise<boolean>> | undefined;
  /** The request is sent in the provider's own API and its answer translated back (translate-request.ts). */
  translation: Translation | undefined;
}

export const V1 = '/v1';

export function createContext(
  req: IncomingMessage,
  kind: RequestKind,
  instanceId: string,
  captureLimit: number,
  captureBodies: boolean,
): RequestContext {
  const receivedAt = Date.now();
  const id = randomUUID();
  const method = req.method ?? 'GET';
  // Path up to the first `?`, query all the rest.
  const url = req.url ?? '/';
  const mark = url.indexOf('?', V1.length);
  const path = mark < 0 ? url.slice(V1.length) : url.slice(V1.length, mark);
  const search = mark < 0 ? '' : url.slice(mark);
  return {
    id,
    kind,
    receivedAt,
    req,
    method,
    path,
    search: search === '?' ? '' : search,
    facts: {
      id,
      traceId: '',
      provider: '',
      customHost: '',
      metadata: {},
      receivedAt,
      method,
      path,
      instanceId,
      requestContentType: req.headers['content-type'],
      request: new BodyCapture(captureLimit),
      response: new BodyCapture(captureLimit),
      captureBodies,
    },
    service: undefined,
    access: undefined,
    route: undefined,
    body: undefined,
    json: undefined,
    form: undefined,
    model: '',
    admission: undefined,
    limitHeaders: undefined,
    result: undefined,
    targetCharges: undefined,
    heldAnswer: undefined,
    usageInjected: false,
    turnCharges: undefined,
    usage: undefined,
    usageClaims: undefined,
    translation: undefined,
  };
}
