// The Redis store's batching: what is asked in one turn of the event loop, or while the previous
// call of the organisation is unanswered, goes in one script call, settlements first, then each
// admission in asking order; and its deadline, which runs from when a request was asked.
import { createServer, type Socket } from 'node:net';
import { test } from '@aigw/testkit';
import { freePort } from '@aigw/testkit/services';
import { Redis } from 'ioredis';
import { describe, expect } from 'vitest';
import { createRedisStore } from './redis-store.js';
import type { SettleInput } from './store.js';

const MINUTE = 60_000;

/** The store over `redis`, and a count of the script calls it sends. */
/** The arguments of a command as they go on the wire (RESP bulk strings), name first. */
function wireArgs(command: { toWritable(socket: object): string | Buffer }): string[] {
  const bytes = command.toWritable({});
  const text = typeof bytes === 'string' ? bytes : bytes.toString('latin1');
  const out: string[] = [];
  let at = text.indexOf('\r\n') + 2;
  while (at < text.length) {
    const end = text.indexOf('\r\n', at);
    const len = Number(text.slice(at + 1, end));
    out.push(text.slice(end + 2, end + 2 + len));
    at = end + 2 + len + 2;
  }
  return out;
}

function countedStore(redis: Redis, timeoutMs = 1_000) {
  const store = createRedisStore(redis, { timeoutMs });
  const counter = { calls: 0, keys: [] as number[] };
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = ((command, stream) => {
    if (command.name === 'evalsha' || command.name === 'eval') {
      counter.calls++;
      counter.keys.push(Number(wireArgs(command)[2]));
    }
    return send(command, stream);
  }) as typeof redis.sendCommand;
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

  test('admissions asked in one turn go in one call, each decided in asking order', async ({ redis }) => {
    const { store, counter } = countedStore(redis.client);
    const rate = {
      key: `lim:{${redis.prefix}turn}:r:p:policy:k`,
      requests: true,
      limit: 3,
      windowMs: MINUTE,
    };
    const outs = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        store.admit({ rates: [rate], budgets: [], reservationId: `t${i}`, reservationTtlMs: MINUTE }),
      ),
    );
    expect(outs.map((o) => [o.admitted, o.rateCounts[0]])).toEqual([
      [true, 0],
      [true, 1],
      [true, 2],
      [false, 3],
      [false, 3],
    ]);
    expect(counter.calls).toBe(1);
    // A refused admission charged nothing: the window holds the three admitted.
    expect(await redis.client.hget(rate.key, 'n')).toBe('3');
  });

  test('what is asked while a call of the organisation is unanswered goes together in the next call', async ({
    redis,
  }) => {
    const { store, counter } = countedStore(redis.client);
    const key = `lim:{${redis.prefix}busy}:u:p:policy:g:0`;
    const budget = { key, limit: 1_000, estimate: 10, expireAtMs: 0 };
    const admit = (id: string) =>
      store.admit({ rates: [], budgets: [budget], reservationId: id, reservationTtlMs: MINUTE });
    const first = admit('f');
    // The first call is sent at the end of this turn; its answer cannot arrive before the next one.
    await new Promise((resolve) => setImmediate(resolve));
    expect(counter.calls).toBe(1);
    const later = [admit('l1'), store.settle(settleOf(key, 'f', 10, 25)), admit('l2')];
    expect((await first).budgets[0]).toMatchObject({ usage: 0, reserved: 0 });
    const [l1, settled, l2] = await Promise.all(later);
    expect(counter.calls).toBe(2);
    // Settlements go first in a call: both admissions saw the settled 25, and l2 saw l1's reservation.
    expect(settled).toMatchObject({ budgets: [{ usage: 25, alert: 'none' }] });
    expect(l1).toMatchObject({ admitted: true, budgets: [{ usage: 25, reserved: 0 }] });
    expect(l2).toMatchObject({ admitted: true, budgets: [{ usage: 25, reserved: 10 }] });
  });

  test('the script is loaded again when Redis lost it (SCRIPT FLUSH, a restart)', async ({ redis }) => {
    const { store, counter } = countedStore(redis.client);
    const key = `lim:{${redis.prefix}flush}:u:p:policy:g:0`;
    const budget = { key, limit: 100, estimate: 0, expireAtMs: 0 };
    await store.settle(settleOf(key, 'a', 0, 7));
    await redis.client.script('FLUSH');
    const out = await store.admit({
      rates: [],
      budgets: [budget],
      reservationId: 'b',
      reservationTtlMs: MINUTE,
    });
    expect(out).toMatchObject({ admitted: true, budgets: [{ usage: 7 }] });
    // NOSCRIPT for the EVALSHA, then one EVAL.
    expect(counter.calls).toBe(3);
  });

  test('a Redis that never answers: the call and what queued behind it fail with the timeout', {
    timeout: 10_000,
  }, async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
    });
    const port = await freePort();
    await new Promise<void>((resolve) => silent.listen(port, '127.0.0.1', resolve));
    const client = new Redis(`redis://127.0.0.1:${port}`, {
      enableReadyCheck: false,
      disableClientInfo: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
    });
    try {
      await new Promise((resolve) => client.once('ready', resolve));
      const { store, counter } = countedStore(client, 50);
      const budget = { key: 'lim:{silent}:u:p:policy:g:0', limit: 100, estimate: 1, expireAtMs: 0 };
      const admit = (id: string) =>
        store.admit({ rates: [], budgets: [budget], reservationId: id, reservationTtlMs: MINUTE });
      const first = admit('1');
      await new Promise((resolve) => setImmediate(resolve));
      const queued = admit('2');
      // Not sent while the first call is unanswered.
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      expect(counter.calls).toBe(1);
      await expect(first).rejects.toThrow('no answer from Redis within 50 ms');
      // Sent once the first timed out, with what is left of its own deadline (or failed unsent when
      // none is left): either way it fails within 50 ms of being asked, not 50 ms after the first.
      await expect(queued).rejects.toThrow('no answer from Redis within 50 ms');
    } finally {
      client.disconnect();
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  test('counters read once per call and written once: the call answers as one request at a time would', async ({
    redis,
  }) => {
    const { store, counter } = countedStore(redis.client);
    const key = `lim:{${redis.prefix}agg}:u:p:policy:g:0`;
    const tokens = `lim:{${redis.prefix}agg}:r:p:policy:t`;
    const settle = (id: string, actual: number): SettleInput => ({
      tokens: [{ key: tokens, windowMs: MINUTE, amount: actual }],
      budgets: [{ key, reserved: 0, actual, limit: 100, threshold: 50, expireAtMs: 0 }],
      reservationId: id,
    });
    const tokenRate = { key: tokens, requests: false, limit: 100, windowMs: MINUTE };
    const outs = await Promise.all([
      store.settle(settle('s1', 30)),
      store.settle(settle('s2', 30)),
      store.settle(settle('s3', 30)),
      store.settle(settle('s4', 30)),
      store.admit({
        rates: [tokenRate],
        budgets: [{ key, limit: 100, estimate: 0, expireAtMs: 0 }],
        reservationId: 'a1',
        reservationTtlMs: MINUTE,
      }),
    ]);
    expect(counter.calls).toBe(1);
    // Each settlement sees the ones before it: threshold (50) crossed by the second, exhausted by the fourth.
    expect(outs.slice(0, 4)).toMatchObject([
      { budgets: [{ usage: 30, alert: 'none' }] },
      { budgets: [{ usage: 60, alert: 'threshold' }] },
      { budgets: [{ usage: 90, alert: 'none' }] },
      { budgets: [{ usage: 120, alert: 'exhausted' }] },
    ]);
    // The admission after them sees 120 tokens in the window and the exhausted budget.
    expect(outs[4]).toMatchObject({ admitted: false, rateCounts: [120], budgets: [{ usage: 120 }] });
    expect(await redis.client.hmget(key, 'u', 'x', 't')).toEqual(['120', '100', '50/100']);
    expect(await redis.client.hget(tokens, 'n')).toBe('120');
    // The window's expiry was set when it started: its end plus the grace.
    expect(await redis.client.pttl(tokens)).toBeGreaterThan(MINUTE);
  });

  test('reservations of one call join and leave their set together; an expired one is counted out', async ({
    redis,
  }) => {
    const { store } = countedStore(redis.client);
    const key = `lim:{${redis.prefix}res}:u:p:policy:g:0`;
    const budget = { key, limit: 1_000, estimate: 100, expireAtMs: 0 };
    const admit = (id: string, ttl = MINUTE) =>
      store.admit({ rates: [], budgets: [budget], reservationId: id, reservationTtlMs: ttl });
    const [a, b, short] = await Promise.all([admit('a'), admit('b'), admit('short', 1)]);
    expect([a, b, short].map((o) => o.budgets[0]?.reserved)).toEqual([0, 100, 200]);
    expect(await redis.client.hget(key, 'r')).toBe('300');
    expect(await redis.client.zcard(`${key}:res`)).toBe(3);
    expect(await redis.client.pttl(`${key}:res`)).toBeGreaterThan(MINUTE / 2);
    await new Promise((resolve) => setTimeout(resolve, 5));
    // 'short' expired unsettled. A request that its reservation would refuse drops it and counts the rest.
    const big = { key, limit: 1_000, estimate: 750, expireAtMs: 0 };
    const out = await store.admit({
      rates: [],
      budgets: [big],
      reservationId: 'big',
      reservationTtlMs: MINUTE,
    });
    expect(out).toMatchObject({ admitted: true, budgets: [{ usage: 0, reserved: 200 }] });
    expect(await redis.client.hget(key, 'r')).toBe('950');
    const settle = (id: string, reserved: number): SettleInput => ({
      tokens: [],
      budgets: [{ key, reserved, actual: 10, limit: 1_000, threshold: -1, expireAtMs: 0 }],
      reservationId: id,
    });
    // Settling 'short' releases nothing (it is gone); the others release what they held.
    await Promise.all([
      store.settle(settle('a', 100)),
      store.settle(settle('short', 100)),
      store.settle(settle('b', 100)),
    ]);
    expect(await redis.client.hmget(key, 'u', 'r')).toEqual(['30', '750']);
    expect(await redis.client.zrange(`${key}:res`, 0, -1)).toEqual(['big:750']);
  });

  test('requests of one call that share counters and limits send them once; each is still decided on its own', async ({
    redis,
  }) => {
    const { store, counter } = countedStore(redis.client);
    const budgetKey = `lim:{${redis.prefix}spec}:u:p:policy:g:0`;
    const rate = (key: string, limit: number) => ({
      key: `lim:{${redis.prefix}spec}:r:${key}`,
      requests: true,
      limit,
      windowMs: MINUTE,
    });
    const admit = (id: string, rateKey: string, rateLimit: number, budgetLimit: number, estimate: number) =>
      store.admit({
        rates: [rate(rateKey, rateLimit)],
        budgets: [{ key: budgetKey, limit: budgetLimit, estimate, expireAtMs: 0 }],
        reservationId: id,
        reservationTtlMs: MINUTE,
      });
    // Key a (2 requests a minute) and key b (3) interleaved, over one budget; a5 comes with a raised
    // limit for a (a snapshot that changed between two requests): its own spec, decided on its limit.
    const outs = await Promise.all([
      admit('a1', 'a', 2, 10_000, 100),
      admit('b1', 'b', 3, 10_000, 200),
      admit('a2', 'a', 2, 10_000, 300),
      admit('b2', 'b', 3, 10_000, 400),
      admit('a3', 'a', 2, 10_000, 500),
      admit('b3', 'b', 3, 10_000, 600),
      admit('b4', 'b', 3, 10_000, 700),
      admit('a5', 'a', 4, 10_000, 800),
    ]);
    expect(counter.calls).toBe(1);
    // Three specs of 3 keys each (rate, usage hash, reservation set), not 3 keys for each of 8 requests.
    expect(counter.keys).toEqual([9]);
    expect(outs.map((o) => o.admitted)).toEqual([true, true, true, true, false, true, false, true]);
    expect(outs.map((o) => o.rateCounts[0])).toEqual([0, 0, 1, 1, 2, 2, 3, 2]);
    // Reserved before each: the estimates of the admitted ones before it, each its own amount.
    expect(outs.map((o) => o.budgets[0]?.reserved)).toEqual([0, 100, 300, 600, 1000, 1000, 1600, 1600]);
    expect(await redis.client.hget(budgetKey, 'r')).toBe('2400');
    expect((await redis.client.zrange(`${budgetKey}:res`, 0, -1)).sort()).toEqual(
      ['a1:100', 'a2:300', 'a5:800', 'b1:200', 'b2:400', 'b3:600'].sort(),
    );
    // Settlements of two specs (two thresholds) in one call: each releases its own reservation.
    const settle = (id: string, reserved: number, threshold: number): SettleInput => ({
      tokens: [],
      budgets: [{ key: budgetKey, reserved, actual: 1_000, limit: 10_000, threshold, expireAtMs: 0 }],
      reservationId: id,
    });
    const settled = await Promise.all(
      [settle('a1', 100, 1_500), settle('b1', 200, -1), settle('a2', 300, 1_500)].map((input) =>
        store.settle(input),
      ),
    );
    expect(counter.calls).toBe(2);
    expect(counter.keys[1]).toBe(4);
    expect(settled.map((o) => o.budgets[0])).toEqual([
      { usage: 1_000, alert: 'none' },
      { usage: 2_000, alert: 'none' },
      { usage: 3_000, alert: 'threshold' },
    ]);
    expect(await redis.client.hmget(budgetKey, 'u', 'r', 't')).toEqual(['3000', '1800', '1500/10000']);
  });

  test('settlements alone wait a little for an admission of their organisation, and go without one', async ({
    redis,
  }) => {
    const { store, counter } = countedStore(redis.client);
    const key = `lim:{${redis.prefix}wait}:u:p:policy:g:0`;
    const budget = { key, limit: 1_000, estimate: 100, expireAtMs: 0 };
    const admit = (id: string) =>
      store.admit({ rates: [], budgets: [budget], reservationId: id, reservationTtlMs: MINUTE });
    await Promise.all([admit('r1'), admit('r2')]);
    expect(counter.calls).toBe(1);
    // A settlement, then an admission two turns of the event loop later: both in one call.
    const settled = store.settle(settleOf(key, 'r1', 100, 40));
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(counter.calls).toBe(1);
    const third = await admit('r3');
    expect(counter.calls).toBe(2);
    expect(third.budgets[0]).toMatchObject({ usage: 40, reserved: 100 });
    expect((await settled).budgets[0]?.usage).toBe(40);
    // 64 settlements waiting make a full call: they go at the end of the turn.
    const full = Array.from({ length: 64 }, (_, i) => store.settle(settleOf(key, `f${i}`, 0, 0)));
    await new Promise((resolve) => setImmediate(resolve));
    expect(counter.calls).toBe(3);
    await Promise.all(full);
    // With no admission coming, a settlement goes on its own.
    expect((await store.settle(settleOf(key, 'r2', 100, 60))).budgets[0]?.usage).toBe(100);
    expect(counter.calls).toBe(4);
    expect(await redis.client.hmget(key, 'u', 'r')).toEqual(['100', '100']);
  });
});
