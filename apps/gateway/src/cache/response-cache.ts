// The cache stage of the request pipeline: decides the x-service-cache-status, finds a stored answer
// (exact key first, then a similar question in semantic mode) and stores fresh answers afterwards.
// Never rejects: a failing store or embeddings API makes the request go to the provider instead.
import type { CacheSettings } from '@aigw/config-schema';
import { type CacheKeyInput, semanticRequest, simpleCacheKey } from './cache-key.js';
import { isCacheableRequest } from './cacheable.js';
import { createSemanticCache, type SemanticCache } from './semantic-cache.js';
import type {
  CachedResponse,
  CacheStatus,
  CacheStore,
  Embed,
  SemanticBucket,
  SemanticIndex,
} from './types.js';

/** Longer questions skip the semantic step: embedding APIs refuse them, and a cut text would match wrongly. */
export const MAX_SEMANTIC_TEXT_CHARS = 16_384;

export type CacheFailureStage = 'get' | 'set' | 'embed' | 'index';

export interface ResponseCacheDeps {
  readonly store: CacheStore;
  /** Without it (no embeddings API configured), `semantic` mode works as `simple` does. */
  readonly semantic?: { readonly index: SemanticIndex; readonly embed: Embed } | undefined;
  /** Every swallowed failure, for a log line or a metric. */
  readonly onError?: (err: unknown, stage: CacheFailureStage) => void;
}

export interface CacheRequest extends CacheKeyInput {
  /** The effective `cache` setting of the target; undefined when the config sets none. */
  readonly settings: CacheSettings | undefined;
  readonly method: string;
  /** Path below `/v1` or the upstream path (see isCacheableRequest). */
  readonly path: string;
  /** `x-service-cache-force-refresh: true`. */
  readonly forceRefresh?: boolean | undefined;
}

export interface CacheLookup {
  readonly status: CacheStatus;
  /** The answer to replay, for HIT and SEMANTIC HIT. */
  readonly hit?: CachedResponse;
  /** Similarity of a SEMANTIC HIT. */
  readonly similarity?: number;
  /**
   * Stores the provider's fresh answer (pass ResponseRecorder.result()). A no-op for hits, DISABLED
   * and undefined or non-2xx answers. Never rejects; call it after the response has been sent.
   */
  store(response: CachedResponse | undefined): Promise<void>;
}

export interface ResponseCache {
  lookup(request: CacheRequest): Promise<CacheLookup>;
}

const noStore = async () => {};

export function createResponseCache(deps: ResponseCacheDeps): ResponseCache {
  const report = deps.onError ?? (() => {});
  const semantic: SemanticCache | undefined = deps.semantic
    ? createSemanticCache({ store: deps.store, ...deps.semantic })
    : undefined;

  async function attempt<T>(stage: CacheFailureStage, run: () => Promise<T>): Promise<T | undefined> {
    try {
      return await run();
    } catch (err) {
      report(err, stage);
      return undefined;
    }
  }

  return {
    async lookup(request) {
      const { settings } = request;
      if (!settings || !isCacheableRequest(request.method, request.path) || request.body === undefined) {
        return { status: 'DISABLED', store: noStore };
      }
      let key: string;
      let question: { text: string; bucket: SemanticBucket } | undefined;
      try {
        key = simpleCacheKey(request);
        question = settings.mode === 'semantic' && semantic ? semanticRequest(request) : undefined;
      } catch (err) {
        // A body too deeply nested to canonicalise: served, never cached.
        report(err, 'get');
        return { status: 'DISABLED', store: noStore };
      }
      if (question && question.text.length > MAX_SEMANTIC_TEXT_CHARS) question = undefined;
      const ttl = settings.max_age;
      const threshold = settings.mode === 'semantic' ? settings.similarity_threshold : 1;
      let vector: Float32Array | undefined;
      let embedded = false;
      const embed = async (text: string) => {
        embedded = true;
        vector = await attempt('embed', () => semantic!.embed(text));
        return vector;
      };

      const store = async (response: CachedResponse | undefined) => {
        if (!response || response.status < 200 || response.status > 299) return;
        await attempt('set', () => deps.store.set(key, response, ttl));
        if (!question || !semantic) return;
        // A refresh skipped the embedding at lookup time: it is done now, off the client's path.
        // A failed one is not retried: the API is likely still failing.
        const remembered = embedded ? vector : await embed(question.text);
        if (remembered) {
          await attempt('index', () =>
            semantic.remember({ vector: remembered, bucket: question.bucket, key, ttlSeconds: ttl }),
          );
        }
      };

      if (request.forceRefresh) return { status: 'REFRESH', store };
      const exact = await attempt('get', () => deps.store.get(key));
      if (exact) return { status: 'HIT', hit: exact, store: noStore };
      if (!question || !semantic) return { status: 'MISS', store };

      const current = await embed(question.text);
      // Without a vector the semantic step did not happen: report it as the simple cache would.
      if (!current) return { status: 'MISS', store };
      const similar = await attempt('index', () =>
        semantic.find({ vector: current, bucket: question.bucket, threshold }),
      );
      if (similar) {
        return {
          status: 'SEMANTIC HIT',
          hit: similar.response,
          similarity: similar.similarity,
          store: noStore,
        };
      }
      return { status: 'SEMANTIC MISS', store };
    },
  };
}
