// Answers a request from the cache: the stored status, headers and exact body bytes. A stored
// stream goes out chunked, event by event, so a streaming client reads the same event stream.
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { CachedResponse } from './types.js';

const MAX_PIECE = 64 * 1024;
const EVENT_END = Buffer.from('\n\n');

/** Split points after each SSE event (a blank line), at most MAX_PIECE apart. */
function pieces(body: Buffer, sse: boolean): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  while (start < body.length) {
    let end = Math.min(start + MAX_PIECE, body.length);
    if (sse) {
      // Searched within the window only: a body without blank lines stays linear to split.
      const boundary = body.subarray(start, end).indexOf(EVENT_END);
      if (boundary !== -1) end = start + boundary + EVENT_END.length;
    }
    out.push(body.subarray(start, end));
    start = end;
  }
  return out;
}

/** Resolves once the answer is written, or once the client is gone. */
export function replay(
  res: ServerResponse,
  cached: CachedResponse,
  extraHeaders: Readonly<Record<string, string>> = {},
): Promise<void> {
  // The gateway's headers first and winning, as forward() orders them on a live answer.
  // Built by loops, not spreads: the same names, order and values as
  // `{ ...extraHeaders, ...cached.headers, ...extraHeaders }`, without V8's slow clone on every hit.
  // No prototype: a stored provider header named `__proto__` stays a header, as with the spread.
  const headers: OutgoingHttpHeaders = Object.create(null);
  for (const name in extraHeaders) headers[name] = extraHeaders[name];
  const stored = cached.headers;
  for (const name in stored) if (!Object.hasOwn(extraHeaders, name)) headers[name] = stored[name];
  if (!cached.streamed) {
    headers['content-length'] = String(cached.body.length);
    res.writeHead(cached.status, headers);
    return new Promise((resolve) => {
      res.once('close', () => resolve());
      res.end(cached.body);
    });
  }
  res.writeHead(cached.status, headers);
  res.flushHeaders();
  const sse = (cached.headers['content-type'] ?? '').toLowerCase().startsWith('text/event-stream');
  const queue = pieces(cached.body, sse);
  return new Promise((resolve) => {
    let next = 0;
    res.once('close', () => resolve());
    const write = () => {
      while (next < queue.length) {
        if (res.destroyed) return;
        if (!res.write(queue[next++]!)) {
          res.once('drain', write);
          return;
        }
      }
      res.end();
    };
    write();
  });
}
