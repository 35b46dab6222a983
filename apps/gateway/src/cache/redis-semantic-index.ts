// Semantic index in Redis, per bucket: a sorted set of store keys scored by expiry time and a hash of
// their vectors (float32 bytes). A lookup reads at most `scanLimit` live vectors and compares them
// here: O(scanLimit x dimensions) work and scanLimit x dimensions x 4 bytes read per lookup.
import type { Redis } from 'ioredis';
import type { SemanticIndex, SemanticMatch } from './types.js';
import { bucketId, dot, unit, vectorBytes, vectorFromBytes } from './vector.js';

export interface RedisSemanticIndexOptions {
  /** Prepended to every key (after the client's own `keyPrefix`). Default `semcache:`. */
  readonly prefix?: string;
  /** Live vectors kept and compared per bucket: those expiring last. */
  readonly scanLimit: number;
}

/**
 * Adds one vector, then, atomically: drops expired members and those beyond the cap (earliest
 * expiry first, at most 1000 expired per call to bound the work), and lets both keys expire with
 * their last member. KEYS: zset, hash. ARGV: member, vector, expiresAt ms, now ms, cap.
 */
const ADD_SCRIPT = `
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
local drop = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[4], 'LIMIT', 0, 1000)
local over = redis.call('ZCARD', KEYS[1]) - #drop - tonumber(ARGV[5])
if over > 0 then
  local oldest = redis.call('ZRANGE', KEYS[1], #drop, #drop + over - 1)
  for _, member in ipairs(oldest) do drop[#drop + 1] = member end
end
if #drop > 0 then
  redis.call('ZREM', KEYS[1], unpack(drop))
  redis.call('HDEL', KEYS[2], unpack(drop))
end
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if last[2] then
  redis.call('PEXPIREAT', KEYS[1], last[2])
  redis.call('PEXPIREAT', KEYS[2], last[2])
end
return #drop
`;

export function createRedisSemanticIndex(redis: Redis, options: RedisSemanticIndexOptions): SemanticIndex {
  const prefix = options.prefix ?? 'semcache:';
  const keys = (id: string) => [`${prefix}${id}:z`, `${prefix}${id}:v`] as const;

  return {
    async lookup(query) {
      const vector = unit(query.vector);
      if (!vector) return undefined;
      const [zset, hash] = keys(bucketId(query));
      const members = await redis.zrevrangebyscore(
        zset,
        '+inf',
        `(${Date.now()}`,
        'LIMIT',
        0,
        options.scanLimit,
      );
      if (members.length === 0) return undefined;
      const vectors = await redis.hmgetBuffer(hash, ...members);
      let best: SemanticMatch | undefined;
      for (const [i, bytes] of vectors.entries()) {
        if (!bytes) continue;
        const similarity = dot(vector, vectorFromBytes(bytes));
        if (similarity >= query.threshold && (!best || similarity > best.similarity)) {
          best = { key: members[i]!, similarity };
        }
      }
      return best;
    },
    async add(entry) {
      const vector = unit(entry.vector);
      if (!vector || entry.ttlSeconds <= 0) return;
      const now = Date.now();
      const [zset, hash] = keys(bucketId(entry));
      await redis.eval(
        ADD_SCRIPT,
        2,
        zset,
        hash,
        entry.key,
        vectorBytes(vector),
        String(Math.ceil(now + entry.ttlSeconds * 1000)),
        String(now),
        String(options.scanLimit),
      );
    },
  };
}
