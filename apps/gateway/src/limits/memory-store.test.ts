import { describe, expect, it } from 'vitest';
import { createMemoryStore } from './memory-store.js';

const MINUTE = 60_000;
const req = (key: string, limit: number) => ({ key, requests: true, limit, windowMs: MINUTE });

describe('memory store', () => {
  it('starts a new window at the minute boundary of its clock', async () => {
    let now = 10 * MINUTE + 59_000;
    const store = createMemoryStore({ now: () => now });
    const input = { rates: [req('a', 1)], budgets: [], reservationId: 'r', reservationTtlMs: MINUTE };
    expect((await store.admit(input)).admitted).toBe(true);
    expect((await store.admit(input)).admitted).toBe(false);
    now += 1_000;
    expect((await store.admit(input)).admitted).toBe(true);
  });

  it('releases a reservation when its TTL passes', async () => {
    let now = 1_000_000;
    const store = createMemoryStore({ now: () => now });
    const budgets = [{ key: 'b', limit: 10, estimate: 10, expireAtMs: 0 }];
    expect(
      (await store.admit({ rates: [], budgets, reservationId: 'one', reservationTtlMs: 5_000 })).admitted,
    ).toBe(true);
    expect(
      (await store.admit({ rates: [], budgets, reservationId: 'two', reservationTtlMs: 5_000 })).admitted,
    ).toBe(false);
    now += 5_000;
    const later = await store.admit({ rates: [], budgets, reservationId: 'three', reservationTtlMs: 5_000 });
    expect(later).toMatchObject({ admitted: true, budgets: [{ reserved: 0 }] });
  });

  it('starts from what Redis last reported, and ignores reports older than its own counts', async () => {
    const now = 5 * MINUTE + 1;
    const store = createMemoryStore({ now: () => now });
    store.observeRate('a', 5 * MINUTE, 2, MINUTE);
    store.observeRate('a', 4 * MINUTE, 9, MINUTE);
    store.observeBudget('b', 70, 0);
    const out = await store.admit({
      rates: [req('a', 3)],
      budgets: [{ key: 'b', limit: 70, estimate: 1, expireAtMs: 0 }],
      reservationId: 'r',
      reservationTtlMs: MINUTE,
    });
    expect(out).toMatchObject({ admitted: false, rateCounts: [2], budgets: [{ usage: 70 }] });
  });

  it('stays bounded: expired counters are swept, then the oldest forgotten', async () => {
    let now = 0;
    const store = createMemoryStore({ now: () => now, maxEntries: 10 });
    for (let i = 0; i < 25; i++) {
      now += MINUTE * 3;
      await store.admit({ rates: [req(`k${i}`, 5)], budgets: [], reservationId: 'r', reservationTtlMs: 1 });
    }
    expect(store.size).toBeLessThanOrEqual(10);
    for (let i = 0; i < 25; i++)
      await store.admit({
        rates: [req(`same-window-${i}`, 5)],
        budgets: [],
        reservationId: 'r',
        reservationTtlMs: 1,
      });
    expect(store.size).toBeLessThanOrEqual(10);
  });

  it('drops a budget counter after its expiry (its period is over)', async () => {
    let now = 1_000;
    const store = createMemoryStore({ now: () => now });
    await store.settle({
      tokens: [],
      budgets: [{ key: 'p', reserved: 0, actual: 50, limit: 50, threshold: -1, expireAtMs: 2_000 }],
      reservationId: 'r',
    });
    const budgets = [{ key: 'p', limit: 50, estimate: 1, expireAtMs: 2_000 }];
    expect(
      (await store.admit({ rates: [], budgets, reservationId: 'a', reservationTtlMs: 1 })).admitted,
    ).toBe(false);
    now = 2_000;
    expect(
      (await store.admit({ rates: [], budgets, reservationId: 'b', reservationTtlMs: 1 })).admitted,
    ).toBe(true);
  });
});
