// Builds the gateway's response cache from its settings: Redis when REDIS_URL is set (shared by
// replicas), else in-process; semantic lookups only when an embeddings API is configured.
import type { Redis } from 'ioredis';
import type { GatewayConfig } from '../config.js';
import { createEmbedder } from './embedder.js';
import { createMemorySemanticIndex } from './memory-semantic-index.js';
import { createMemoryCacheStore } from './memory-store.js';
import { createRedisSemanticIndex } from './redis-semantic-index.js';
import { createRedisCacheStore } from './redis-store.js';
import { createResponseCache, type ResponseCache, type ResponseCacheDeps } from './response-cache.js';

export type CacheConfig = Pick<
  GatewayConfig,
  | 'CACHE_MEMORY_MAX_ENTRIES'
  | 'CACHE_MEMORY_MAX_BYTES'
  | 'CACHE_MAX_ENTRY_BYTES'
  | 'SEMANTIC_CACHE_EMBEDDINGS_URL'
  | 'SEMANTIC_CACHE_EMBEDDINGS_API_KEY'
  | 'SEMANTIC_CACHE_EMBEDDINGS_MODEL'
  | 'SEMANTIC_CACHE_EMBEDDINGS_TIMEOUT_MS'
  | 'SEMANTIC_CACHE_SCAN_LIMIT'
>;

export function createGatewayResponseCache(
  config: CacheConfig,
  redis: Redis | undefined,
  onError?: ResponseCacheDeps['onError'],
): ResponseCache {
  const store = redis
    ? createRedisCacheStore(redis, { maxEntryBytes: config.CACHE_MAX_ENTRY_BYTES })
    : createMemoryCacheStore({
        maxEntries: config.CACHE_MEMORY_MAX_ENTRIES,
        maxBytes: config.CACHE_MEMORY_MAX_BYTES,
        maxEntryBytes: config.CACHE_MAX_ENTRY_BYTES,
      });
  const url = config.SEMANTIC_CACHE_EMBEDDINGS_URL;
  const semantic = url
    ? {
        index: redis
          ? createRedisSemanticIndex(redis, { scanLimit: config.SEMANTIC_CACHE_SCAN_LIMIT })
          : createMemorySemanticIndex({
              maxEntries: config.CACHE_MEMORY_MAX_ENTRIES,
              scanLimit: config.SEMANTIC_CACHE_SCAN_LIMIT,
            }),
        embed: createEmbedder({
          url,
          apiKey: config.SEMANTIC_CACHE_EMBEDDINGS_API_KEY,
          model: config.SEMANTIC_CACHE_EMBEDDINGS_MODEL,
          timeoutMs: config.SEMANTIC_CACHE_EMBEDDINGS_TIMEOUT_MS,
        }),
      }
    : undefined;
  return createResponseCache({ store, semantic, ...(onError ? { onError } : {}) });
}
