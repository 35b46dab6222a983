// Usage that budgets can trust on OpenAI-style streams: a client that did not ask for usage
// (`stream_options.include_usage`, off in the OpenAI SDK by default) gets it asked for on its
// behalf, and what that adds to the stream is taken back out before the client sees it
// (formats/openai-stream-usage.ts), so the client receives the bytes it would have received calling
// the provider directly. The usage itself is read from the provider's bytes, like any stream's.
import type { IncomingHttpHeaders } from 'node:http';
import { StreamUsageStripper, withStreamUsage } from '../formats/openai-stream-usage.js';
import type { ResponseFilter } from '../upstream/forward.js';

/**
 * Providers whose OpenAI-style APIs accept `stream_options.include_usage`. Others may refuse an
 * unknown field (Mistral answers 422): their streams are read as they come (usage the provider
 * reports on its own), else estimated with the tokenizer, so they are never free either.
 */
const ASKS_USAGE: ReadonlySet<string> = new Set([
  'openai',
  'azure-openai',
  'deepseek',
  'groq',
  'together-ai',
  'fireworks-ai',
]);

/** Azure accepts `stream_options` from this API version on; older ones refuse it. */
const AZURE_STREAM_OPTIONS_SINCE = '2024-09-01';

/**
 * Chat and text completions of a provider that takes `include_usage`: the OpenAI-style APIs whose
 * streams report usage only when asked. `search` is the request's query (Azure's `api-version` may
 * be there), `azureApiVersion` the header's.
 */
export function streamsUsageOnRequest(
  method: string,
  path: string,
  providerId: string,
  search = '',
  azureApiVersion?: string,
): boolean {
  if (method !== 'POST' || !ASKS_USAGE.has(providerId)) return false;
  if (!path.endsWith('/chat/completions') && !path.endsWith('/completions')) return false;
  if (providerId !== 'azure-openai') return true;
  const version = new URLSearchParams(search).get('api-version') ?? azureApiVersion ?? '';
  return version.slice(0, 10) >= AZURE_STREAM_OPTIONS_SINCE;
}

/** The body to send when the client streams without usage; undefined when nothing changes. */
export function withUsageRequested(json: unknown): Record<string, unknown> | undefined {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
  const asked = withStreamUsage(json as Record<string, unknown>);
  return asked.changed ? asked.body : undefined;
}

const ignoreUsage = () => {};

/** The filter of an answer to a request whose usage the gateway asked for: event streams only. */
export function injectedUsageFilter(headers: IncomingHttpHeaders): ResponseFilter | undefined {
  return headers['content-type']?.startsWith('text/event-stream')
    ? new StreamUsageStripper(ignoreUsage)
    : undefined;
}
