import { Redis } from 'ioredis';
import { expect } from 'vitest';
import { test } from './fixtures.js';
import { createTestRedis, deleteKeysWithPrefix } from './redis-namespace.js';

// The shape of a fixed-window counter: one atomic call increments and starts the window.
const INCREMENT_WITH_EXPIRY = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return { count, redis.call('PTTL', KEYS[1]) }
`;

test('EVAL runs a Lua increment-with-expiry atomically under the prefix', async ({ redis }) => {
  const results: Array<[number, number]> = [];
  for (let i = 0; i < 3; i++) {
    results.push(
      (await redis.client.eval(INCREMENT_WITH_EXPIRY, 1, 'rl:user-1', 60_000)) as [number, number],
    );
  }
  expect(results.map(([count]) => count)).toEqual([1, 2, 3]);
  for (const [, ttl] of results) {
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  }
  const raw = new Redis(redis.url);
  try {
    expect(await raw.get(`${redis.prefix}rl:user-1`)).toBe('3');
    expect(await raw.exists('rl:user-1')).toBe(0);
  } finally {
    await raw.quit();
  }
});

test('another namespace does not see this one, and its cleanup leaves this one alone', async ({ redis }) => {
  await redis.client.set('shared-name', 'mine');
  const other = await createTestRedis(redis.url);
  expect(other.prefix).not.toBe(redis.prefix);
  expect(other.prefix).toMatch(/^t:[0-9a-f]{10}:$/);
  expect(await other.client.get('shared-name')).toBeNull();
  await other.client.set('shared-name', 'theirs');
  await other.cleanup();
  expect(await redis.client.get('shared-name')).toBe('mine');
});

test('cleanup deletes every key under the prefix, across several SCAN pages', async ({ redis }) => {
  const scratch = await createTestRedis(redis.url);
  const pipeline = scratch.client.pipeline();
  for (let i = 0; i < 2500; i++) pipeline.set(`k:${i}`, String(i));
  pipeline.hset('a-hash', 'field', 'value');
  await pipeline.exec();
  const outsider = `outside:${scratch.prefix}`;
  const raw = new Redis(redis.url);
  try {
    await raw.set(outsider, 'keep');
    expect(await countKeys(raw, scratch.prefix)).toBe(2501);
    await scratch.cleanup();
    expect(await countKeys(raw, scratch.prefix)).toBe(0);
    expect(await raw.get(outsider)).toBe('keep');
    expect(await deleteKeysWithPrefix(redis.url, scratch.prefix)).toBe(0);
  } finally {
    await raw.del(outsider);
    await raw.quit();
  }
  expect(scratch.client.status).toBe('end');
});

async function countKeys(raw: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let count = 0;
  do {
    const [next, keys] = await raw.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    count += keys.length;
    cursor = next;
  } while (cursor !== '0');
  return count;
}
