// The limits stage of a control-plane request: what the limits engine matches policies on (its
// LimitSubject), the estimate it reserves from, and the usage it is settled with after the answer.
import type { ActualUsage, Admission, LimitSubject, RequestEstimate } from '../limits/index.js';
import { type ResponseFacts, readResponseFacts } from '../proxy/usage.js';
import { managedRef } from './event-identity.js';
import type { RequestAccess } from './request-access.js';

/**
 * `provider`: the provider type chosen by the headers. A config request's subject names no provider
 * ('' and no managed provider, virtual key or their limits, whatever the headers say): its targets
 * decide the provider, and each call of a target is admitted for it (auth/target-limits.ts).
 * Built by assignment rather than conditional spreads: this runs for every request, and the plan
 * cache keys on these values, not on the object.
 */
export function limitSubject(access: RequestAccess, providerType: string, model: string): LimitSubject {
  const { identity, route } = access;
  const ref = route.kind === 'config' ? undefined : managedRef(route, access);
  const saved = route.kind === 'config' ? route.saved : undefined;
  const subject: { -readonly [K in keyof LimitSubject]: LimitSubject[K] } = {
    organisationId: identity.organisation.id,
    workspaceId: identity.workspace.id,
    apiKeyId: identity.apiKey?.id ?? '',
    provider: ref?.slug || providerType,
    providerType,
    model,
    configId: saved?.id ?? '',
    virtualKeyId: ref?.virtualKeyId ?? '',
    metadata: access.metadata,
    workspace: identity.workspace,
  };
  if (saved) subject.configSlug = saved.slug;
  if (ref?.virtualKeySlug) subject.virtualKeySlug = ref.virtualKeySlug;
  if (identity.apiKey) subject.apiKey = identity.apiKey;
  if (ref?.provider) subject.providerEntity = ref.provider;
  if (ref?.integration) subject.integration = ref.integration;
  if (ref?.virtualKey) subject.virtualKey = ref.virtualKey;
  const iw = ref?.integrationWorkspace;
  if (iw && ref?.integration) {
    subject.integrationWorkspace = {
      integrationId: ref.integration.id,
      workspaceId: iw.workspaceId,
      rateLimits: iw.rateLimits,
      usageLimits: iw.usageLimits,
    };
  }
  return subject;
}

/** From a JSON body: its max_tokens (any of the names APIs use) and a size-based input guess. */
export function requestEstimate(json: unknown, bodyBytes: number): RequestEstimate {
  const o = typeof json === 'object' && json !== null ? (json as Record<string, unknown>) : {};
  const max = [o.max_tokens, o.max_completion_tokens, o.max_output_tokens].find(
    (v): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0,
  );
  // About four bytes a token for text; a guess only, settled with the real count.
  return { maxTokens: max, inputTokensGuess: Math.ceil(bodyBytes / 4) };
}

/** The answer's usage as settle takes it (undefined when it reported none and made none). */
export function settledUsage(
  contentType: string | undefined,
  head: Buffer | undefined,
  tail: Buffer,
  model: string,
  providerType: string,
): ActualUsage | undefined {
  return usageOf(readResponseFacts(contentType, head, tail), model, providerType);
}

/** `settledUsage` of an answer already read (the request event reuses what settle read). */
export function usageOf(facts: ResponseFacts, model: string, providerType: string): ActualUsage | undefined {
  if (!facts.usage) return undefined;
  return {
    inputTokens: facts.usage.inputTokens,
    outputTokens: facts.usage.outputTokens,
    cachedInputTokens: facts.usage.cachedInputTokens,
    model: facts.model ?? model,
    provider: providerType,
  };
}

export const LIMITS_DEGRADED_HEADER = 'x-service-limits-degraded';

/** The admission's `x-ratelimit-*` headers, and the degraded flag when Redis was not used. */
export function admissionHeaders(admission: Admission): Readonly<Record<string, string>> {
  return admission.degraded ? { ...admission.headers, [LIMITS_DEGRADED_HEADER]: 'true' } : admission.headers;
}
