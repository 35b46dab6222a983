// The rules every CounterStore follows, run against the Lua scripts on real Redis and against the
// in-process store: both must decide alike, since one is the other's fallback.
import { randomUUID } from 'node:crypto';
import { type RedisFixture, test } from '@aigw/testkit';
import { describe, expect } from 'vitest';
import { createMemoryStore } from './memory-store.js';
import { createRedisStore } from './redis-store.js';
import type { AdmitInput, BudgetCounter, CounterStore, RateCounter } from './store.js';

type Make = (redis: RedisFixture) => CounterStore;

const MINUTE = 60_000;
const rate = (key: string, limit: number, requests = true): RateCounter => ({
  key,
  requests,
  limit,
  windowMs: MINUTE,
});
const budget = (key: string, limit: number, estimate: number): BudgetCounter => ({
  key,
  limit,
  estimate,
  expireAtMs: 0,
});
const admission = (rates: RateCounter[], budgets: BudgetCounter[] = []): AdmitInput => ({
  rates,
  budgets,
  reservationId: randomUUID(),
  reservationTtlMs: MINUTE,
});
const settleBudget = (key: string, reserved: number, actual: number, limit: number, threshold = -1) => ({
  key,
  reserved,
  actual,
  limit,
  threshold,
  expireAtMs: 0,
});

function contract(name: string, make: Make) {
  // Keys are unique per run: the Redis fixture is shared by the file.
  const k = (suffix: string) => `lim:{contract}:${name}:${suffix}`;

  describe(`${name} store`, () => {
    test('requests: counts before the admission, refuses past the limit', async ({ redis }) => {
      const store = make(redis);
      const r = rate(k('req'), 2);
      const counts = [];
      for (let i = 0; i < 3; i++) {
        const out = await store.admit(admission([r]));
        counts.push([out.rateCounts[0], out.admitted]);
      }
      expect(counts).toEqual([
        [0, true],
        [1, true],
        [2, false],
      ]);
    });

    test('all or nothing over rates and budgets', async ({ redis }) => {
      const store = make(redis);
      const full = rate(k('aon-full'), 0);
      const open = rate(k('aon-open'), 5);
      const b = budget(k('aon-budget'), 100, 10);
      expect((await store.admit(admission([open, full], [b]))).admitted).toBe(false);
      const after = await store.admit(admission([open], [b]));
      expect(after.rateCounts).toEqual([0]);
      expect(after.budgets[0]).toMatchObject({ usage: 0, reserved: 0 });
    });

    test('tokens: admission only checks, settle charges', async ({ redis }) => {
      const store = make(redis);
      const t = rate(k('tok'), 100, false);
      expect((await store.admit(admission([t]))).rateCounts).toEqual([0]);
      await store.settle({
        tokens: [{ key: t.key, windowMs: MINUTE, amount: 99 }],
        budgets: [],
        reservationId: 'x',
      });
      expect(await store.admit(admission([t]))).toMatchObject({ admitted: true, rateCounts: [99] });
      await store.settle({
        tokens: [{ key: t.key, windowMs: MINUTE, amount: 1 }],
        budgets: [],
        reservationId: 'x',
      });
      expect(await store.admit(admission([t]))).toMatchObject({ admitted: false, rateCounts: [100] });
    });

    test('reservations hold the budget until settled; with none in flight any estimate may go', async ({
      redis,
    }) => {
      const store = make(redis);
      const b = budget(k('res'), 300, 100);
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) {
        const input = admission([], [b]);
        const out = await store.admit(input);
        if (out.admitted) ids.push(input.reservationId);
      }
      expect(ids).toHaveLength(3);
      const settle = (id: string, actual: number) =>
        store.settle({ tokens: [], budgets: [settleBudget(b.key, 100, actual, 300)], reservationId: id });
      expect((await settle(ids[0] as string, 50)).budgets[0]).toEqual({ usage: 50, alert: 'none' });
      const held = await store.admit(admission([], [b]));
      expect(held).toMatchObject({ admitted: false, budgets: [{ usage: 50, reserved: 200 }] });
      await settle(ids[1] as string, 0);
      await settle(ids[2] as string, 0);
      await settle(ids[2] as string, 0); // released once only
      const big = await store.admit(admission([], [budget(b.key, 300, 1_000)]));
      expect(big).toMatchObject({ admitted: true, budgets: [{ usage: 50, reserved: 0 }] });
    });

    test('threshold then exhausted, each once; a raised limit re-arms both', async ({ redis }) => {
      const store = make(redis);
      const key = k('alerts');
      const charge = async (actual: number, limit: number, threshold: number) =>
        (
          await store.settle({
            tokens: [],
            budgets: [settleBudget(key, 0, actual, limit, threshold)],
            reservationId: 'x',
          })
        ).budgets[0];
      expect(await charge(60, 100, 50)).toEqual({ usage: 60, alert: 'threshold' });
      expect(await charge(10, 100, 50)).toEqual({ usage: 70, alert: 'none' });
      expect(await charge(40, 100, 50)).toEqual({ usage: 110, alert: 'exhausted' });
      const refused = await store.admit(admission([], [budget(key, 100, 1)]));
      expect(refused).toMatchObject({ admitted: false, budgets: [{ usage: 110, exhaustedAlert: false }] });
      expect(await charge(10, 200, 150)).toEqual({ usage: 120, alert: 'none' });
      expect(await charge(40, 200, 150)).toEqual({ usage: 160, alert: 'threshold' });
      expect(await charge(40, 200, 150)).toEqual({ usage: 200, alert: 'exhausted' });
    });

    test('a limit lowered under the usage is reported exhausted once, at admission', async ({ redis }) => {
      const store = make(redis);
      const key = k('lowered');
      await store.settle({ tokens: [], budgets: [settleBudget(key, 0, 80, 100)], reservationId: 'x' });
      const first = await store.admit(admission([], [budget(key, 50, 1)]));
      const second = await store.admit(admission([], [budget(key, 50, 1)]));
      expect(first.budgets[0]).toMatchObject({ usage: 80, exhaustedAlert: true });
      expect(second.budgets[0]).toMatchObject({ usage: 80, exhaustedAlert: false });
    });
  });
}

contract('redis', (redis) => createRedisStore(redis.client));
const memory = createMemoryStore();
contract('memory', () => memory);
