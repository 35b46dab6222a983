// Answers in Redis: one binary string per key with the TTL set by `SET ... EX`, shared by replicas.
import type { Redis } from 'ioredis';
import { decodeEntry, encodeEntry } from './entry-codec.js';
import type { CacheStore } from './types.js';

export const DEFAULT_MAX_ENTRY_BYTES = 4 * 1024 * 1024;

export interface RedisCacheStoreOptions {
  /** Prepended to every key (after the client's own `keyPrefix`, if any). Default `cache:`. */
  readonly prefix?: string;
  /** Encoded entries larger than this are not stored. Default 4 MiB. */
  readonly maxEntryBytes?: number;
}

export function createRedisCacheStore(redis: Redis, options: RedisCacheStoreOptions = {}): CacheStore {
  const prefix = options.prefix ?? 'cache:';
  const maxEntryBytes = options.maxEntryBytes ?? DEFAULT_MAX_ENTRY_BYTES;
  return {
    async get(key) {
      const bytes = await redis.getBuffer(prefix + key);
      return bytes ? decodeEntry(bytes) : undefined;
    },
    async set(key, value, ttlSeconds) {
      const bytes = encodeEntry(value);
      const ttl = Math.ceil(ttlSeconds);
      // Too big or already expired: the old value must not outlive a refresh that replaced it.
      if (bytes.length > maxEntryBytes || ttl <= 0) {
        await redis.unlink(prefix + key);
        return;
      }
      await redis.set(prefix + key, bytes, 'EX', ttl);
    },
  };
}
