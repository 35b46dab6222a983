import { setTimeout as sleep } from 'node:timers/promises';
import { type RedisFixture, test } from '@aigw/testkit';
import { describe, expect } from 'vitest';
import { createMemorySemanticIndex } from './memory-semantic-index.js';
import { createRedisSemanticIndex } from './redis-semantic-index.js';
import type { SemanticBucket, SemanticIndex } from './types.js';
import { bucketId } from './vector.js';

const bucket: SemanticBucket = { scope: 'ws-1', namespace: '', model: 'gpt-4o', paramsKey: 'p1' };
const vec = (...values: number[]) => Float32Array.from(values);

type MakeIndex = (redis: RedisFixture, options: { scanLimit: number; prefix: string }) => SemanticIndex;

function indexContract(name: string, make: MakeIndex) {
  describe(`${name} semantic index contract`, () => {
    test('finds the most similar live vector at or above the threshold', async ({ redis }) => {
      const index = make(redis, { scanLimit: 100, prefix: 'a:' });
      await index.add({ ...bucket, key: 'east', vector: vec(1, 0, 0), ttlSeconds: 60 });
      await index.add({ ...bucket, key: 'north-east', vector: vec(1, 1, 0), ttlSeconds: 60 });
      await index.add({ ...bucket, key: 'up', vector: vec(0, 0, 5), ttlSeconds: 60 });
      // Cosine: scale does not matter.
      const hit = await index.lookup({ ...bucket, vector: vec(10, 2, 0), threshold: 0.9 });
      expect(hit?.key).toBe('east');
      expect(hit?.similarity).toBeCloseTo(10 / Math.sqrt(104), 5);
      expect((await index.lookup({ ...bucket, vector: vec(1, 0.9, 0), threshold: 0.99 }))?.key).toBe(
        'north-east',
      );
      expect(await index.lookup({ ...bucket, vector: vec(1, 0, 1), threshold: 0.75 })).toBeUndefined();
      expect(await index.lookup({ ...bucket, vector: vec(0, 0, 0), threshold: 0 })).toBeUndefined();
    });

    test('matches only within the same scope, namespace, model and parameters', async ({ redis }) => {
      const index = make(redis, { scanLimit: 100, prefix: 'b:' });
      await index.add({ ...bucket, key: 'k', vector: vec(1, 0), ttlSeconds: 60 });
      const query = { vector: vec(1, 0), threshold: 0.5 };
      expect((await index.lookup({ ...bucket, ...query }))?.key).toBe('k');
      for (const other of [
        { scope: 'ws-2' },
        { namespace: 'team-a' },
        { model: 'gpt-4o-mini' },
        { paramsKey: 'p2' },
      ]) {
        expect(await index.lookup({ ...bucket, ...other, ...query })).toBeUndefined();
      }
    });

    test('never matches vectors of another dimension', async ({ redis }) => {
      const index = make(redis, { scanLimit: 100, prefix: 'c:' });
      await index.add({ ...bucket, key: 'k', vector: vec(1, 0, 0), ttlSeconds: 60 });
      expect(await index.lookup({ ...bucket, vector: vec(1, 0), threshold: 0 })).toBeUndefined();
    });

    test('replaces a key added again and compares only the most recent scanLimit entries', async ({
      redis,
    }) => {
      const index = make(redis, { scanLimit: 3, prefix: 'd:' });
      await index.add({ ...bucket, key: 'k', vector: vec(1, 0), ttlSeconds: 60 });
      await index.add({ ...bucket, key: 'k', vector: vec(0, 1), ttlSeconds: 60 });
      expect(await index.lookup({ ...bucket, vector: vec(1, 0), threshold: 0.5 })).toBeUndefined();
      expect((await index.lookup({ ...bucket, vector: vec(0, 1), threshold: 0.5 }))?.key).toBe('k');
      await index.add({ ...bucket, key: 'first', vector: vec(1, 0.01), ttlSeconds: 60 });
      for (const key of ['x1', 'x2', 'x3'])
        await index.add({ ...bucket, key, vector: vec(-1, 0), ttlSeconds: 60 });
      expect(await index.lookup({ ...bucket, vector: vec(1, 0), threshold: 0.5 })).toBeUndefined();
    });

    test('forgets entries once their TTL has passed', async ({ redis }) => {
      const index = make(redis, { scanLimit: 100, prefix: 'e:' });
      await index.add({ ...bucket, key: 'short', vector: vec(1, 0), ttlSeconds: 1 });
      await index.add({ ...bucket, key: 'long', vector: vec(0.9, 0.1), ttlSeconds: 60 });
      expect((await index.lookup({ ...bucket, vector: vec(1, 0), threshold: 0.5 }))?.key).toBe('short');
      await sleep(1_200);
      expect((await index.lookup({ ...bucket, vector: vec(1, 0), threshold: 0.5 }))?.key).toBe('long');
    });
  });
}

indexContract('memory', (_redis, { scanLimit }) =>
  createMemorySemanticIndex({ maxEntries: 1000, scanLimit }),
);
indexContract('redis', (redis, options) => createRedisSemanticIndex(redis.client, options));

describe('redis semantic index', () => {
  test('keeps a sorted set and a hash per bucket, trimmed and expiring with their last entry', async ({
    redis,
  }) => {
    const index = createRedisSemanticIndex(redis.client, { scanLimit: 2, prefix: 'f:' });
    for (const key of ['a', 'b', 'c']) await index.add({ ...bucket, key, vector: vec(1, 0), ttlSeconds: 30 });
    const zset = `f:${bucketId(bucket)}:z`;
    const hash = `f:${bucketId(bucket)}:v`;
    expect(await redis.client.zrange(zset, 0, -1)).toEqual(['b', 'c']);
    expect((await redis.client.hkeys(hash)).sort()).toEqual(['b', 'c']);
    expect((await redis.client.hgetBuffer(hash, 'c'))?.length).toBe(8);
    const ttl = await redis.client.pttl(zset);
    expect(ttl).toBeGreaterThan(25_000);
    expect(ttl).toBeLessThanOrEqual(30_000);
  });
});

describe('memory semantic index', () => {
  test('bounds the total entries across buckets, evicting the least recently written bucket first', async () => {
    let now = 0;
    const index = createMemorySemanticIndex({ maxEntries: 2, scanLimit: 10, now: () => now });
    const other = { ...bucket, paramsKey: 'p2' };
    await index.add({ ...bucket, key: 'old', vector: vec(1, 0), ttlSeconds: 60 });
    await index.add({ ...other, key: 'o1', vector: vec(1, 0), ttlSeconds: 60 });
    await index.add({ ...other, key: 'o2', vector: vec(0, 1), ttlSeconds: 60 });
    expect(await index.lookup({ ...bucket, vector: vec(1, 0), threshold: 0.5 })).toBeUndefined();
    expect((await index.lookup({ ...other, vector: vec(1, 0), threshold: 0.5 }))?.key).toBe('o1');
    now = 60_000;
    expect(await index.lookup({ ...other, vector: vec(1, 0), threshold: 0.5 })).toBeUndefined();
  });
});
