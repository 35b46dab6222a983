// Token usage and the served model, read from a provider's JSON answer or from the final chunks of
// its event stream, SSE or Bedrock's AWS event stream (by shape: the formats module knows each
// provider's); estimated from sizes when the provider reported none.
import {
  type AnswerFacts,
  awsEventStreamFacts,
  estimateUsageFromSizes,
  jsonFacts,
  retrievalFacts,
  streamFacts,
  type Usage,
} from '../formats/index.js';

/** `inputTokens` includes cached and cache-write tokens (pricing's convention), whatever the
 *  provider's; `cacheWriteInputTokens` is there only when the provider reported cache writes. */
export type { Usage } from '../formats/index.js';

/** `chargedOnce`: an object's id whose usage is charged once (pipeline/usage-claims.ts). */
export type ResponseFacts = AnswerFacts;

/** The last `"usage": {...}` (or `"usageMetadata"`) object in a text whose beginning is cut off. */
function trailingUsage(text: string): Usage | undefined {
  const at = text.lastIndexOf('"usage');
  if (at < 0) return undefined;
  const key = /^"(usage|usageMetadata)"\s*:/.exec(text.slice(at, at + 24))?.[1];
  const start = key ? text.indexOf('{', at) : -1;
  if (!key || start < 0) return undefined;
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) {
      try {
        return jsonFacts({ [key]: JSON.parse(text.slice(start, i + 1)) }).usage;
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** Methods that read or remove what exists: their answers are no model call of their own. */
const RETRIEVALS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

/** Whether a request only reads or removes what exists (its answer's usage is not new usage). */
export function isRetrieval(method: string): boolean {
  return RETRIEVALS.has(method);
}

/**
 * Usage and model from the head (whole JSON body) or tail (stream end) of a response to a request
 * with this method. A retrieval's JSON answer reports usage only for an object whose creation could
 * not (formats' `retrievalFacts`: a batch, a background Response); an event stream answering a
 * retrieval is a background Response's generation resumed (`GET /responses/{id}?stream=true`), read
 * as any stream.
 */
export function readResponseFacts(
  contentType: string | undefined,
  head: Buffer | undefined,
  tail: Buffer,
  method: string,
): ResponseFacts {
  if (contentType?.startsWith('text/event-stream')) {
    return streamFacts(tail);
  }
  // Bedrock's streams; the tail is enough (usage is in the last messages).
  if (contentType?.startsWith('application/vnd.amazon.eventstream')) return awsEventStreamFacts(tail);
  if (!contentType?.includes('json')) return { usage: undefined, model: undefined };
  const retrieval = isRetrieval(method);
  // Larger than the capture: the usage of a model call's answer sits at its end; a retrieval's
  // cannot be told from a repeat without the whole object.
  if (!head) return { usage: retrieval ? undefined : trailingUsage(tail.toString('utf8')), model: undefined };
  let body: unknown;
  try {
    body = JSON.parse(head.toString('utf8'));
  } catch {
    return { usage: undefined, model: undefined };
  }
  return retrieval ? retrievalFacts(body) : jsonFacts(body);
}

/** Rough count (4 bytes a token) used only when the provider reported no usage and the texts are
 *  not at hand; formats' estimateUsage counts texts with a real tokenizer. */
export function estimateUsage(requestText: number, responseText: number): Usage {
  return estimateUsageFromSizes(requestText, responseText);
}
