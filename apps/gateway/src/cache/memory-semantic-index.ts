// Semantic index in this process: per bucket, the most recent vectors; bounded in total entries.
import type { SemanticIndex, SemanticMatch } from './types.js';
import { bucketId, dot, unit } from './vector.js';

export interface MemorySemanticIndexOptions {
  /** Vectors kept across all buckets (the least recently written bucket loses its oldest first). */
  readonly maxEntries: number;
  /** Vectors kept (and compared) per bucket: the most recent ones. */
  readonly scanLimit: number;
  readonly now?: () => number;
}

interface Entry {
  readonly key: string;
  readonly vector: Float32Array;
  readonly expiresAt: number;
}

export function createMemorySemanticIndex(options: MemorySemanticIndexOptions): SemanticIndex {
  const now = options.now ?? Date.now;
  // Oldest entry first in each list; the Map's first bucket is the least recently written.
  const buckets = new Map<string, Entry[]>();
  let total = 0;

  const evictOne = () => {
    for (const [id, entries] of buckets) {
      entries.shift();
      total--;
      if (entries.length === 0) buckets.delete(id);
      return;
    }
  };

  return {
    async lookup(query) {
      const entries = buckets.get(bucketId(query));
      const vector = unit(query.vector);
      if (!entries || !vector) return undefined;
      const at = now();
      let best: SemanticMatch | undefined;
      for (const entry of entries) {
        if (entry.expiresAt <= at) continue;
        const similarity = dot(vector, entry.vector);
        if (similarity >= query.threshold && (!best || similarity > best.similarity)) {
          best = { key: entry.key, similarity };
        }
      }
      return best;
    },
    async add(entry) {
      const vector = unit(entry.vector);
      if (!vector || entry.ttlSeconds <= 0 || options.maxEntries <= 0) return;
      const id = bucketId(entry);
      const at = now();
      const previous = buckets.get(id) ?? [];
      buckets.delete(id);
      const kept = previous.filter((e) => e.key !== entry.key && e.expiresAt > at);
      kept.push({ key: entry.key, vector, expiresAt: at + entry.ttlSeconds * 1000 });
      const trimmed = kept.length > options.scanLimit ? kept.slice(kept.length - options.scanLimit) : kept;
      total += trimmed.length - previous.length;
      buckets.set(id, trimmed);
      while (total > options.maxEntries) evictOne();
    },
  };
}
