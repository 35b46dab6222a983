// The Redis store's batching: settlements wait for the end of the event-loop turn and ride along
// with the next admission of their organisation (applied before it), or go together in one call.
import { test } from '@aigw/testkit';
import type { Redis } from 'ioredis';
import { describe, expect } from 'vitest';
import { createRedisStore } from './redis-store.js';
import type { SettleInput } from './store.js';

const MINUTE = 60_000;

type Scripted = Redis & { aigwLimits(...args: (string | number)[]): Promise<number[]> };

/** The store over `redis`, and a count of the script calls it sends. */
function countedStore(redis: Redis) {
  const store = createRedisStore(redis);
  const client = redis as Scripted;
  const send = client.aigwLimits.bind(client);
  const counter = { calls: 0 };
  client.aigwLimits = (...args) => {
    counter.calls++;
    return send(...args);
  };
  return { store, counter };
}

const settleOf = (key: string, reservationId: string, reserved: number, actual: number): SettleInput => ({
  tokens: [],
  budgets: [{ key, reserved, actual, limit: 100, threshold: -1, expireAtMs: 0 }],
  reservationId,
});

describe('redis store batching', () => {
  test('a settlement sent before an admission of the same organisation is applied first, in the same call', async ({
    redis,
  }) => {
    const { store, counter } = countedStore(redis.client);
    const key = `lim:{${redis.prefix}a}:u:api_key:k:tokens:0`;
    const budget = { key, limit: 100, estimate: 30, expireAtMs: 0 };
    const first = await store.admit({
      rates: [],
      budgets: [budget],
      reservationId: 'r1',
      reservationTtlMs: MINUTE,
    });
    expect(first.budgets[0]).toMatchObject({ usage: 0, reserved: 0 });
    const before = counter.calls;
    const settled = store.settle(settleOf(key, 'r1', 30, 90));
    const second = await store.admit({
      rates: [],
      budgets: [budget],
      reservationId: 'r2',
      reservationTtlMs: MINUTE,
    });
    // The admission saw the settled usage and no reservation left: it refuses nothing yet (90 < 100).
    expect(second.budgets[0]).toMatchObject({ usage: 90, reserved: 0 });
    expect(second.admitted).toBe(true);
    expect((await settled).budgets[0]?.usage).toBe(90);
    expect(counter.calls - before).toBe(1);
  });

  test('settlements of one turn go in one call per organisation, each answered with its own counters', async ({
    redis,
  }) => {
    const { store, counter } = countedStore(redis.client);
    const a = `lim:{${redis.prefix}a}:u:p:policy:g:0`;
    const b = `lim:{${redis.prefix}b}:u:p:policy:g:0`;
    const tokens = `lim:{${redis.prefix}a}:r:p:policy:t`;
    const outs = await Promise.all([
      store.settle(settleOf(a, 'x1', 0, 5)),
      store.settle(settleOf(a, 'x2', 0, 7)),
      store.settle(settleOf(b, 'x3', 0, 11)),
      store.settle({
        tokens: [{ key: tokens, windowMs: MINUTE, amount: 4 }],
        budgets: [],
        reservationId: 'x4',
      }),
    ]);
    expect(outs.map((o) => o.budgets.map((x) => x.usage))).toEqual([[5], [12], [11], []]);
    expect(counter.calls).toBe(2);
    expect(await redis.client.hget(tokens, 'n')).toBe('4');
  });

  test('a burst of settlements is split into calls of at most 64, an admission taking at most 64 of them', async ({
    redis,
  }) => {
    const { store, counter } = countedStore(redis.client);
    const key = `lim:{${redis.prefix}burst}:u:p:policy:g:0`;
    const settles = Array.from({ length: 150 }, (_, i) => store.settle(settleOf(key, `b${i}`, 0, 1)));
    const admitted = store.admit({
      rates: [],
      budgets: [{ key, limit: 1_000, estimate: 0, expireAtMs: 0 }],
      reservationId: 'after',
      reservationTtlMs: MINUTE,
    });
    // The admission carried the first 64 settlements and saw them; the other 86 went in two calls.
    expect((await admitted).budgets[0]?.usage).toBe(64);
    const usages = (await Promise.all(settles)).map((o) => o.budgets[0]?.usage);
    expect(usages).toEqual(Array.from({ length: 150 }, (_, i) => i + 1));
    expect(counter.calls).toBe(3);
  });
});
