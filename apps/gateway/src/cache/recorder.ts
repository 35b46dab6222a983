// Records a provider answer as it streams past, for the cache: the status, the headers worth
// replaying and every body byte, up to a cap. Gives up (holding nothing) on anything not storable.
import type { IncomingHttpHeaders } from 'node:http';
import { HOP_BY_HOP } from '../upstream/headers.js';
import type { CachedResponse } from './types.js';

/** Connection-level, framing, per-call or per-moment headers: wrong on a replay. */
const DROPPED = new Set([
  ...HOP_BY_HOP,
  'content-length',
  'date',
  'age',
  'set-cookie',
  'x-request-id',
  'request-id',
  'openai-processing-ms',
  'retry-after',
  'retry-after-ms',
  'cf-ray',
  'cf-cache-status',
  'server-timing',
  'alt-svc',
  'via',
  'x-envoy-upstream-service-time',
  'apim-request-id',
  'x-ms-request-id',
  'x-ms-client-request-id',
  'x-amzn-requestid',
  'x-amz-request-id',
  'x-amzn-trace-id',
  'x-cloud-trace-context',
]);

/** Rate-limit snapshots (the provider's, at recording time) and the gateway's own headers. */
const DROPPED_PREFIXES = ['x-ratelimit-', 'anthropic-ratelimit-', 'x-service-'];

/** Content types replayed as a stream: SSE, AWS event streams, newline-delimited JSON. */
const STREAM_TYPES = ['text/event-stream', 'application/vnd.amazon.eventstream', 'application/x-ndjson'];

function keptHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const listed = new Set(
    (headers.connection ?? '')
      .split(',')
      .map((t) => t.trim().toLowerCase())
      .filter((t) => t !== ''),
  );
  const out: Record<string, string> = {};
  for (const [rawName, value] of Object.entries(headers)) {
    const name = rawName.toLowerCase();
    if (value === undefined || DROPPED.has(name) || listed.has(name)) continue;
    if (DROPPED_PREFIXES.some((p) => name.startsWith(p))) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/**
 * Feed it `head()` once, then every body chunk through `push()` (it fits forward()'s response sink),
 * then `end()` only when the body completed normally. `result()` is the storable answer or undefined.
 */
export class ResponseRecorder {
  private chunks: Buffer[] = [];
  private bytes = 0;
  private status = 0;
  private headers: Record<string, string> = {};
  private streamed = false;
  private state: 'waiting' | 'recording' | 'ended' | 'refused' = 'waiting';

  constructor(
    private readonly maxBytes: number,
    private readonly now: () => number = Date.now,
  ) {}

  head(status: number, headers: IncomingHttpHeaders): void {
    if (this.state !== 'waiting') {
      this.refuse();
      return;
    }
    const encoding = headers['content-encoding'];
    // Only successful, unencoded answers: a compressed body would be replayed to clients that may
    // not accept its encoding (ask the provider for `accept-encoding: identity` when caching).
    if (status < 200 || status > 299 || (encoding !== undefined && encoding !== 'identity')) {
      this.refuse();
      return;
    }
    const type = (headers['content-type'] ?? '').toLowerCase();
    this.status = status;
    this.headers = keptHeaders(headers);
    this.streamed = STREAM_TYPES.some((t) => type.startsWith(t));
    this.state = 'recording';
  }

  push(chunk: Buffer): void {
    if (this.state !== 'recording') return;
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) this.refuse();
    else this.chunks.push(chunk);
  }

  end(): void {
    if (this.state === 'recording') this.state = 'ended';
  }

  /** Nothing is stored for this answer (an error, the client went away, a failed guardrail...). */
  refuse(): void {
    this.state = 'refused';
    this.chunks = [];
  }

  result(): CachedResponse | undefined {
    if (this.state !== 'ended') return undefined;
    return {
      status: this.status,
      headers: this.headers,
      body: this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks),
      streamed: this.streamed,
      storedAt: this.now(),
    };
  }
}
