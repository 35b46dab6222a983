// The cache's shared shapes: what is stored, where it is stored, and what a lookup reports.

/** The `x-service-cache-status` values (ARCHITECTURE part 4). */
export type CacheStatus = 'HIT' | 'SEMANTIC HIT' | 'MISS' | 'SEMANTIC MISS' | 'REFRESH' | 'DISABLED';

export const CACHE_STATUS_HEADER = 'x-service-cache-status';

/** One stored provider answer. Treated as immutable once stored. */
export interface CachedResponse {
  readonly status: number;
  /** Lower-case names; hop-by-hop, volatile and framing headers already removed. */
  readonly headers: Readonly<Record<string, string>>;
  /** The exact body bytes; for an event stream, the exact stream bytes. */
  readonly body: Buffer;
  /** True when the body is an event stream (replayed chunked, never with a content-length). */
  readonly streamed: boolean;
  /** Epoch milliseconds when the answer was recorded. */
  readonly storedAt: number;
}

/** Key-value storage of answers with a TTL. Implementations may drop entries early (eviction). */
export interface CacheStore {
  get(key: string): Promise<CachedResponse | undefined>;
  /** Silently skips values larger than the store's per-entry cap. */
  set(key: string, value: CachedResponse, ttlSeconds: number): Promise<void>;
}

/** Which semantic entries may match each other: the same tenant, namespace, model and parameters. */
export interface SemanticBucket {
  /** The tenant (workspace id, or whatever the pipeline isolates by); '' when there is none. */
  readonly scope: string;
  /** `x-service-cache-namespace`; '' when absent. */
  readonly namespace: string;
  readonly model: string;
  /** Hash of everything in the request except the last user message's text (see `semanticParamsKey`). */
  readonly paramsKey: string;
}

export interface SemanticMatch {
  /** The store key of the matching answer. */
  readonly key: string;
  readonly similarity: number;
}

/** Vectors of past questions per bucket, searched by cosine similarity. */
export interface SemanticIndex {
  /** The most similar live entry of the bucket whose similarity is at least `threshold`. */
  lookup(
    query: SemanticBucket & { readonly vector: Float32Array; readonly threshold: number },
  ): Promise<SemanticMatch | undefined>;
  add(
    entry: SemanticBucket & {
      readonly key: string;
      readonly vector: Float32Array;
      readonly ttlSeconds: number;
    },
  ): Promise<void>;
}

/** Turns a question into a vector (an embeddings API call). Rejects on any failure. */
export type Embed = (text: string) => Promise<Float32Array>;
