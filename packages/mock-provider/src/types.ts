// Public types of the mock provider: options, knobs, recorded requests and the server handle.
import type { IncomingHttpHeaders } from 'node:http';

/** Which provider a route imitates (`mock` is the control surface and the unknown-path catch-all). */
export type ProviderName =
  | 'openai'
  | 'anthropic'
  | 'azure'
  | 'bedrock'
  | 'vertex'
  | 'google'
  | 'cohere'
  | 'mock';

/** Providers whose auth is a plain key or bearer token (Bedrock uses SigV4 instead). */
export type KeyedProvider = 'openai' | 'anthropic' | 'azure' | 'vertex' | 'google' | 'cohere';

/** Behaviour knobs. Server-wide values come from options/configure(); `x-mock-*` headers override them. */
export interface MockKnobs {
  /** Delay before the response headers are sent. */
  latencyMs: number;
  /** Answer every call with this status and a provider-shaped error body (only >= 400 has effect). */
  status: number | undefined;
  /** The first N calls (per scenario key) fail with `failStatus`, later ones succeed. */
  failFirst: number;
  /** Status used by `failFirst` failures. */
  failStatus: number;
  /** Seconds; sets `retry-after` and `retry-after-ms` on every error response. */
  retryAfter: number | undefined;
  /** Delay between two stream chunks. */
  chunkDelayMs: number;
  /** Stream this many chunks, then send nothing more while keeping the socket open. */
  stallAfterChunks: number | undefined;
  /** Stream this many chunks, then destroy the socket. */
  cutAfterChunks: number | undefined;
  /** Number of content chunks a stream carries (default: one per word of the content). */
  chunks: number | undefined;
  /**
   * 1: OpenAI chat answers carry no usage at all, JSON or stream, and `include_usage` is ignored
   * (as some self-hosted OpenAI-compatible servers do). 0 (default): usage as OpenAI reports it.
   */
  omitUsage: number;
}

/** A partial update of the knobs; `null` resets a knob to its default. */
export type KnobPatch = { [K in keyof MockKnobs]?: MockKnobs[K] | null };

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface MockOptions extends KnobPatch {
  /** Interface to bind (default 127.0.0.1). */
  host?: string;
  /** Port to bind (default 0: any free port). */
  port?: number;
  /** Credentials Bedrock requests must be signed with (default DEFAULT_AWS_CREDENTIALS). */
  aws?: AwsCredentials;
  /**
   * Accepted keys/tokens. An array applies to every keyed provider; an object sets them per provider.
   * A provider without a list accepts any non-empty key.
   */
  apiKeys?: readonly string[] | Partial<Record<KeyedProvider, readonly string[]>>;
  /** Recorded requests kept (oldest dropped first; default 10000, 0 records nothing, e.g. under load). */
  maxRecorded?: number;
}

/** One part of a multipart/form-data body. */
export interface MultipartPart {
  name: string;
  filename?: string;
  contentType?: string;
  headers: Record<string, string>;
  data: Buffer;
}

/** Everything the mock saw of one request (recorded before auth, so rejected calls are visible too). */
export interface RecordedRequest {
  /** The `x-request-id` the mock answered with. */
  requestId: string;
  method: string;
  /** Raw request target as received (path and query, still percent-encoded). */
  url: string;
  /** Decoded path without the query. */
  path: string;
  query: Record<string, string | string[]>;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** Parsed body when it is valid JSON. */
  json?: unknown;
  /** Parts of a multipart/form-data body. */
  parts?: MultipartPart[];
  /** Provider the matched route imitates. */
  provider: ProviderName;
  /** Path parameters of the matched route (deployment, modelId, project, location, model, id, ...). */
  params: Record<string, string>;
  /** True for a WebSocket upgrade request. */
  upgrade: boolean;
  receivedAt: number;
  /** What the mock answered: status and the exact body bytes it wrote (filled as they are sent). */
  response?: { status: number; body: Buffer };
}

export interface MockProvider {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:40123`. */
  readonly url: string;
  readonly port: number;
  /** Requests in arrival order (live view; `clear()` empties it). */
  readonly requests: readonly RecordedRequest[];
  /** Current server-wide knobs. */
  readonly knobs: Readonly<MockKnobs>;
  /** Forget recorded requests, fail-first counters and uploaded files. */
  clear(): void;
  /** Reset fail-first counters only (all scenarios, or one scenario key). */
  resetCounters(scenario?: string): void;
  /** Change server-wide knobs; also resets fail-first counters when `failFirst` is in the patch. */
  configure(patch: KnobPatch): void;
  /** Back to the knobs given at creation, and clear(). */
  reset(): void;
  close(): Promise<void>;
}
