import { setTimeout as sleep } from 'node:timers/promises';
import { type RedisFixture, test } from '@aigw/testkit';
import { describe, expect } from 'vitest';
import { entrySize } from './entry-codec.js';
import { createMemoryCacheStore } from './memory-store.js';
import { createRedisCacheStore } from './redis-store.js';
import type { CachedResponse, CacheStore } from './types.js';

const ALL_BYTES = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

const answer = (body: Buffer | string, extra: Partial<CachedResponse> = {}): CachedResponse => ({
  status: 200,
  headers: { 'content-type': 'application/json', 'openai-version': '2020-10-01' },
  body: Buffer.isBuffer(body) ? body : Buffer.from(body),
  streamed: false,
  storedAt: 1_700_000_000_123,
  ...extra,
});

type MakeStore = (redis: RedisFixture, options: { maxEntryBytes: number }) => CacheStore;

/** The contract every CacheStore meets, run against each implementation with real backends. */
function storeContract(name: string, make: MakeStore) {
  describe(`${name} store contract`, () => {
    test('returns what was stored, and nothing for unknown keys', async ({ redis }) => {
      const store = make(redis, { maxEntryBytes: 1024 * 1024 });
      const value = answer('{"id":"chatcmpl-1"}', { status: 201 });
      await store.set('k1', value, 60);
      expect(await store.get('k1')).toEqual(value);
      expect(await store.get('k2')).toBeUndefined();
    });

    test('keeps bodies byte for byte (every byte value, invalid UTF-8) and the streamed flag', async ({
      redis,
    }) => {
      const store = make(redis, { maxEntryBytes: 1024 * 1024 });
      const body = Buffer.concat([
        ALL_BYTES,
        Buffer.from([0xc3, 0x28, 0xff, 0xfe]),
        Buffer.from('data: é\n\n'),
      ]);
      const value = answer(body, {
        streamed: true,
        headers: { 'content-type': 'text/event-stream', 'x-é': 'ü' },
      });
      await store.set('binary', value, 60);
      const read = await store.get('binary');
      expect(read?.body.equals(body)).toBe(true);
      expect(read).toEqual(value);
      await store.set('empty', answer(Buffer.alloc(0)), 60);
      expect((await store.get('empty'))?.body.length).toBe(0);
    });

    test('replaces an entry on a second set', async ({ redis }) => {
      const store = make(redis, { maxEntryBytes: 1024 * 1024 });
      await store.set('same', answer('old'), 60);
      await store.set('same', answer('new'), 60);
      expect((await store.get('same'))?.body.toString()).toBe('new');
    });

    test('forgets an entry once its TTL has passed', async ({ redis }) => {
      const store = make(redis, { maxEntryBytes: 1024 * 1024 });
      await store.set('short', answer('short-lived'), 1);
      await store.set('long', answer('long-lived'), 60);
      expect((await store.get('short'))?.body.toString()).toBe('short-lived');
      await sleep(1_300);
      expect(await store.get('short')).toBeUndefined();
      expect((await store.get('long'))?.body.toString()).toBe('long-lived');
    });

    test('skips entries above the per-entry cap, dropping the value they replace', async ({ redis }) => {
      const store = make(redis, { maxEntryBytes: 2048 });
      await store.set('big', answer('small'), 60);
      await store.set('big', answer(Buffer.alloc(4096, 1)), 60);
      expect(await store.get('big')).toBeUndefined();
      await store.set('fits', answer(Buffer.alloc(1024, 2)), 60);
      expect((await store.get('fits'))?.body.length).toBe(1024);
    });
  });
}

storeContract('memory', (_redis, { maxEntryBytes }) =>
  createMemoryCacheStore({ maxEntries: 100, maxBytes: 1024 * 1024, maxEntryBytes }),
);
storeContract('redis', (redis, { maxEntryBytes }) =>
  createRedisCacheStore(redis.client, { prefix: 'c1:', maxEntryBytes }),
);

describe('redis store', () => {
  test('writes one key per entry under its prefix with the TTL as expiry', async ({ redis }) => {
    const store = createRedisCacheStore(redis.client, { prefix: 'pfx:' });
    await store.set('v1:-:abc', answer('x'), 120);
    const ttl = await redis.client.ttl('pfx:v1:-:abc');
    expect(ttl).toBeGreaterThan(110);
    expect(ttl).toBeLessThanOrEqual(120);
    expect(await createRedisCacheStore(redis.client, { prefix: 'other:' }).get('v1:-:abc')).toBeUndefined();
  });

  test('treats bytes it did not write as a miss', async ({ redis }) => {
    await redis.client.set('cache:garbage', 'not an entry');
    await redis.client.set('cache:truncated', Buffer.from([1, 0, 0, 1, 0, 0x7b]));
    const store = createRedisCacheStore(redis.client);
    expect(await store.get('garbage')).toBeUndefined();
    expect(await store.get('truncated')).toBeUndefined();
  });
});

describe('memory store', () => {
  const small = (id: number) => answer(`{"n":${id}}`);

  test('evicts the least recently used entry beyond the entry count', async () => {
    const store = createMemoryCacheStore({ maxEntries: 3, maxBytes: 1024 * 1024 });
    for (const id of [1, 2, 3]) await store.set(`k${id}`, small(id), 60);
    await store.get('k1');
    await store.set('k4', small(4), 60);
    expect(store.size).toBe(3);
    expect(await store.get('k2')).toBeUndefined();
    for (const id of [1, 3, 4]) expect((await store.get(`k${id}`))?.body.toString()).toBe(`{"n":${id}}`);
  });

  test('evicts least recently used entries beyond the byte budget', async () => {
    const one = entrySize(answer(Buffer.alloc(1000)));
    const store = createMemoryCacheStore({ maxEntries: 100, maxBytes: one * 3 });
    for (const id of [1, 2, 3]) await store.set(`k${id}`, answer(Buffer.alloc(1000, id)), 60);
    expect(store.bytes).toBe(one * 3);
    await store.get('k1');
    await store.set('k4', answer(Buffer.alloc(1000, 4)), 60);
    expect(store.size).toBe(3);
    expect(store.bytes).toBe(one * 3);
    expect(await store.get('k2')).toBeUndefined();
    expect((await store.get('k1'))?.body[0]).toBe(1);
    // One entry a little larger than two: the two least recent go to make room.
    await store.set('big', answer(Buffer.alloc(2001, 9)), 60);
    expect(await store.get('k3')).toBeUndefined();
    expect(await store.get('k4')).toBeUndefined();
    expect((await store.get('big'))?.body[0]).toBe(9);
    expect(store.bytes).toBeLessThanOrEqual(one * 3);
  });

  test('expires on its clock and frees the bytes', async () => {
    let now = 1_000;
    const store = createMemoryCacheStore({ maxEntries: 10, maxBytes: 1024 * 1024, now: () => now });
    await store.set('k', small(1), 5);
    now += 4_999;
    expect(await store.get('k')).toBeDefined();
    now += 1;
    expect(await store.get('k')).toBeUndefined();
    expect(store.size).toBe(0);
    expect(store.bytes).toBe(0);
  });
});
