// A request's side of the limits engine: the estimate an admission reserves from, the usage an
// answer settles with, and the response headers an admission adds.

import type { MediaUnits } from '@aigw/pricing';
import { requestMediaUnits } from '../formats/index.js';
import type { ResponseFacts } from '../upstream/usage.js';
import type { ActualUsage } from './charges.js';
import type { Admission, RequestEstimate } from './limits.js';

export const LIMITS_DEGRADED_HEADER = 'x-service-limits-degraded';

/**
 * From a JSON body: its max_tokens (any of the names APIs use), a size-based input guess, and on
 * image and speech paths (below `/v1`) the images or characters it asks for.
 */
export function requestEstimate(json: unknown, bodyBytes: number, path?: string): RequestEstimate {
  const o = typeof json === 'object' && json !== null ? (json as Record<string, unknown>) : {};
  const max = [o.max_tokens, o.max_completion_tokens, o.max_output_tokens].find(
    (v): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0,
  );
  // About four bytes a token for text; a guess only, settled with the real count.
  const media = path === undefined ? undefined : requestMediaUnits(path, json);
  return { maxTokens: max, inputTokensGuess: Math.ceil(bodyBytes / 4), media };
}

/**
 * The answer's usage as settle takes it, from its facts (read once: the request event reuses them);
 * undefined when it reported none and made none. `media`: the units a successful image or audio call
 * was measured at (formats' measuredMediaUnits), charged with no token usage too (an image answer
 * reports none).
 */
export function usageOf(
  facts: ResponseFacts,
  model: string,
  providerType: string,
  media?: MediaUnits,
): ActualUsage | undefined {
  if (!facts.usage && !media) return undefined;
  return {
    inputTokens: facts.usage?.inputTokens ?? 0,
    outputTokens: facts.usage?.outputTokens ?? 0,
    cachedInputTokens: facts.usage?.cachedInputTokens,
    model: facts.model ?? model,
    provider: providerType,
    media,
  };
}

/** The admission's `x-ratelimit-*` headers, and the degraded flag when Redis was not used. */
export function admissionHeaders(admission: Admission): Readonly<Record<string, string>> {
  return admission.degraded ? { ...admission.headers, [LIMITS_DEGRADED_HEADER]: 'true' } : admission.headers;
}
