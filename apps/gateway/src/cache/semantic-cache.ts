// Semantic lookups: embed the question, find the closest earlier question of the same bucket, and
// fetch that question's stored answer.
import type { CachedResponse, CacheStore, Embed, SemanticBucket, SemanticIndex } from './types.js';

export interface SemanticCacheDeps {
  readonly store: CacheStore;
  readonly index: SemanticIndex;
  readonly embed: Embed;
}

export interface SemanticHit {
  readonly key: string;
  readonly similarity: number;
  readonly response: CachedResponse;
}

export interface SemanticCache {
  readonly embed: Embed;
  /** The best stored answer at or above `threshold`, if any. Rejects when embedding or reading fails. */
  find(query: {
    readonly vector: Float32Array;
    readonly bucket: SemanticBucket;
    readonly threshold: number;
  }): Promise<SemanticHit | undefined>;
  /** Makes `key`'s answer findable by questions close to `vector`. */
  remember(entry: {
    readonly vector: Float32Array;
    readonly bucket: SemanticBucket;
    readonly key: string;
    readonly ttlSeconds: number;
  }): Promise<void>;
}

export function createSemanticCache(deps: SemanticCacheDeps): SemanticCache {
  return {
    embed: deps.embed,
    async find({ vector, bucket, threshold }) {
      const match = await deps.index.lookup({ ...bucket, vector, threshold });
      if (!match) return undefined;
      // The index can outlive the answer (evicted from memory, or a shorter TTL): then it is a miss.
      const response = await deps.store.get(match.key);
      return response ? { ...match, response } : undefined;
    },
    async remember({ vector, bucket, key, ttlSeconds }) {
      await deps.index.add({ ...bucket, key, vector, ttlSeconds });
    },
  };
}
