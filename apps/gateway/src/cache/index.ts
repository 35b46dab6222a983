// Public surface of the response cache (issue 4 item 3), for the request pipeline.
export { type CacheConfig, createGatewayResponseCache } from './cache-from-config.js';
export { type CacheKeyInput, canonicalUrl, semanticRequest, simpleCacheKey } from './cache-key.js';
export { isCacheableRequest } from './cacheable.js';
export { canonicalJson } from './canonical-json.js';
export { createEmbedder, type EmbedderSettings } from './embedder.js';
export { lastUserMessage, splitLastUserMessage } from './last-user-message.js';
export { createMemorySemanticIndex, type MemorySemanticIndexOptions } from './memory-semantic-index.js';
export {
  createMemoryCacheStore,
  type MemoryCacheStore,
  type MemoryCacheStoreOptions,
} from './memory-store.js';
export { ResponseRecorder } from './recorder.js';
export { createRedisSemanticIndex, type RedisSemanticIndexOptions } from './redis-semantic-index.js';
export {
  createRedisCacheStore,
  DEFAULT_MAX_ENTRY_BYTES,
  type RedisCacheStoreOptions,
} from './redis-store.js';
export { replay } from './replay.js';
export {
  type CacheFailureStage,
  type CacheLookup,
  type CacheRequest,
  createResponseCache,
  MAX_SEMANTIC_TEXT_CHARS,
  type ResponseCache,
  type ResponseCacheDeps,
} from './response-cache.js';
export {
  createSemanticCache,
  type SemanticCache,
  type SemanticCacheDeps,
  type SemanticHit,
} from './semantic-cache.js';
export {
  CACHE_STATUS_HEADER,
  type CachedResponse,
  type CacheStatus,
  type CacheStore,
  type Embed,
  type SemanticBucket,
  type SemanticIndex,
  type SemanticMatch,
} from './types.js';
