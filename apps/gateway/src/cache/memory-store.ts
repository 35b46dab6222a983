// Answers in this process: an LRU bounded by entry count and bytes, each entry with its own expiry.
import { entrySize } from './entry-codec.js';
import { DEFAULT_MAX_ENTRY_BYTES } from './redis-store.js';
import type { CachedResponse, CacheStore } from './types.js';

export interface MemoryCacheStoreOptions {
  readonly maxEntries: number;
  /** Total of body and header bytes kept. */
  readonly maxBytes: number;
  /** Entries larger than this are not stored. Default 4 MiB. */
  readonly maxEntryBytes?: number;
  /** Clock in epoch milliseconds (tests). */
  readonly now?: () => number;
}

export interface MemoryCacheStore extends CacheStore {
  /** Entries held, expired ones included until they are read or evicted. */
  readonly size: number;
  readonly bytes: number;
}

interface Slot {
  readonly value: CachedResponse;
  readonly size: number;
  readonly expiresAt: number;
}

export function createMemoryCacheStore(options: MemoryCacheStoreOptions): MemoryCacheStore {
  const now = options.now ?? Date.now;
  const maxEntryBytes = Math.min(options.maxEntryBytes ?? DEFAULT_MAX_ENTRY_BYTES, options.maxBytes);
  // A Map iterates in insertion order: re-inserting on read makes the first key the least recent.
  const slots = new Map<string, Slot>();
  let bytes = 0;

  const remove = (key: string) => {
    const slot = slots.get(key);
    if (!slot) return;
    slots.delete(key);
    bytes -= slot.size;
  };

  return {
    get size() {
      return slots.size;
    },
    get bytes() {
      return bytes;
    },
    async get(key) {
      const slot = slots.get(key);
      if (!slot) return undefined;
      slots.delete(key);
      if (slot.expiresAt <= now()) {
        bytes -= slot.size;
        return undefined;
      }
      slots.set(key, slot);
      return slot.value;
    },
    async set(key, value, ttlSeconds) {
      remove(key);
      const size = entrySize(value);
      if (size > maxEntryBytes || ttlSeconds <= 0 || options.maxEntries <= 0) return;
      slots.set(key, { value, size, expiresAt: now() + ttlSeconds * 1000 });
      bytes += size;
      for (const oldest of slots.keys()) {
        if (slots.size <= options.maxEntries && bytes <= options.maxBytes) break;
        remove(oldest);
      }
    },
  };
}
