// Usage that budgets can trust on OpenAI-style streams: a client that did not ask for usage
// (`stream_options.include_usage`, off in the OpenAI SDK by default) gets it asked for on its
// behalf, and what that adds to the stream is taken back out before the client sees it
// (formats/openai-stream-usage.ts), so the client receives the bytes it would have received calling
// the provider directly. The usage itself is read from the provider's bytes, like any stream's.
import type { IncomingHttpHeaders } from 'node:http';
import { StreamUsageStripper, withStreamUsage } from '../formats/openai-stream-usage.js';
import type { ResponseFilter } from '../upstream/forward.js';

/** Chat and text completions: the OpenAI-style APIs whose streams report usage only when asked. */
export function streamsUsageOnRequest(method: string, path: string): boolean {
  return method === 'POST' && (path.endsWith('/chat/completions') || path.endsWith('/completions'));
}

/** A cheap look at the raw body before parsing: only bodies naming `"stream"` can be streams. */
export function mayStream(body: Buffer): boolean {
  return body.includes('"stream"');
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
