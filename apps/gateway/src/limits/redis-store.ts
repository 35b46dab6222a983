// Counters in Redis: admission and settlement are each part of ONE Lua call over every applicable
// counter, timed by Redis TIME, so decisions are exact across gateway replicas. Rate counters are fixed
// windows (hash {w: window start, n: count}); budgets are hashes {u: usage, r: reserved, x/t: alert
// marks} with a sorted set of reservations (`<id>:<amount>` scored by expiry) beside them.
import type { Redis } from 'ioredis';
import {
  type AdmitInput,
  type AdmitOutput,
  type AlertTransition,
  type CounterStore,
  type SettleInput,
  type SettleOutput,
  thresholdMark,
  WINDOW_GRACE_MS,
} from './store.js';

// One script for both operations, so that settlements waiting to be sent ride along with the next
// admission of the same organisation (one call, one hash slot) or go together in one call.
// KEYS, in order: per settlement its token counters then (usage hash, reservation zset) per budget;
// then, when an admission follows, its rate counters then (usage hash, reservation zset) per budget.
// ARGV: nSettlements; per settlement nTokens, nBudgets, reservationId, per token counter (windowMs,
// amount), per budget (reserved, actual, limit, threshold or -1, threshold mark, expireAtMs); then
// '1' and the admission (nRates, nBudgets, reservationId, ttlMs, per rate (requests 1|0, limit,
// windowMs), per budget (limit, estimate, expireAtMs)), or '0'.
// Returns {now, per settlement per budget (usage, alert), then for an admission: admitted, per rate
// its count, per budget (usage, reserved, exhaustedAlert)}. Refusal rules mirror store.ts `refuses`.
const SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local out = {now}
local k, a = 0, 2
for s = 1, tonumber(ARGV[1]) do
  local nt, nb, rid = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), ARGV[a + 2]
  a = a + 3
  for i = 1, nt do
    local key, win, amount = KEYS[k + i], tonumber(ARGV[a]), tonumber(ARGV[a + 1])
    a = a + 2
    local ws = now - now % win
    if tonumber(redis.call('HGET', key, 'w')) == ws then
      redis.call('HINCRBY', key, 'n', amount)
    else
      redis.call('HSET', key, 'w', ws, 'n', amount)
    end
    redis.call('PEXPIREAT', key, ws + win + ${WINDOW_GRACE_MS})
  end
  k = k + nt
  for j = 1, nb do
    local uk, rk = KEYS[k + 2 * j - 1], KEYS[k + 2 * j]
    local reserved, actual, limit = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
    local threshold, mark, exp = tonumber(ARGV[a + 3]), ARGV[a + 4], tonumber(ARGV[a + 5])
    if reserved > 0 and redis.call('ZREM', rk, rid .. ':' .. ARGV[a]) == 1 then
      if redis.call('HINCRBY', uk, 'r', -reserved) < 0 then redis.call('HSET', uk, 'r', 0) end
    end
    local u
    if actual > 0 then
      u = redis.call('HINCRBY', uk, 'u', actual)
    else
      u = tonumber(redis.call('HGET', uk, 'u')) or 0
    end
    local alert = 0
    if u >= limit then
      if redis.call('HGET', uk, 'x') ~= ARGV[a + 2] then
        redis.call('HSET', uk, 'x', ARGV[a + 2])
        if threshold >= 0 then redis.call('HSET', uk, 't', mark) end
        alert = 2
      end
    elseif threshold >= 0 and u >= threshold and redis.call('HGET', uk, 't') ~= mark then
      redis.call('HSET', uk, 't', mark)
      alert = 1
    end
    if exp > 0 and (actual > 0 or alert > 0) then redis.call('PEXPIREAT', uk, exp) end
    a = a + 6
    out[#out + 1] = u
    out[#out + 1] = alert
  end
  k = k + 2 * nb
end
if ARGV[a] ~= '1' then return out end
local nr, nb, rid, ttl = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), ARGV[a + 3], tonumber(ARGV[a + 4])
local first = a + 5
local base = #out + 1
out[base] = 1
local ok = true
a = first
for i = 1, nr do
  local req, limit, win = ARGV[a] == '1', tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  a = a + 3
  local h = redis.call('HMGET', KEYS[k + i], 'w', 'n')
  local n = 0
  if tonumber(h[1]) == now - now % win then n = tonumber(h[2]) or 0 end
  out[#out + 1] = n
  if (req and n + 1 > limit) or ((not req) and n >= limit) then ok = false end
end
for j = 1, nb do
  local uk, rk = KEYS[k + nr + 2 * j - 1], KEYS[k + nr + 2 * j]
  local limit, est, exp = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  local h = redis.call('HMGET', uk, 'u', 'r', 'x')
  local u, r = tonumber(h[1]) or 0, tonumber(h[2]) or 0
  if r > 0 then
    if redis.call('EXISTS', rk) == 0 then
      r = 0
      redis.call('HSET', uk, 'r', 0)
    else
      local gone = redis.call('ZRANGEBYSCORE', rk, '-inf', now)
      if #gone > 0 then
        for _, m in ipairs(gone) do r = r - (tonumber(string.match(m, ':(%d+)$')) or 0) end
        if r < 0 then r = 0 end
        redis.call('ZREMRANGEBYSCORE', rk, '-inf', now)
        redis.call('HSET', uk, 'r', r)
      end
    end
  end
  local alert = 0
  if u >= limit then
    ok = false
    if h[3] ~= ARGV[a] then
      redis.call('HSET', uk, 'x', ARGV[a])
      if exp > 0 then redis.call('PEXPIREAT', uk, exp) end
      alert = 1
    end
  elseif r > 0 and u + r + est > limit then
    ok = false
  end
  a = a + 3
  out[#out + 1] = u
  out[#out + 1] = r
  out[#out + 1] = alert
end
if not ok then
  out[base] = 0
  return out
end
a = first
for i = 1, nr do
  if ARGV[a] == '1' then
    local win = tonumber(ARGV[a + 2])
    local ws = now - now % win
    if out[base + i] == 0 then
      redis.call('HSET', KEYS[k + i], 'w', ws, 'n', 1)
    else
      redis.call('HINCRBY', KEYS[k + i], 'n', 1)
    end
    redis.call('PEXPIREAT', KEYS[k + i], ws + win + ${WINDOW_GRACE_MS})
  end
  a = a + 3
end
for j = 1, nb do
  local est, exp = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  if est > 0 then
    local uk, rk = KEYS[k + nr + 2 * j - 1], KEYS[k + nr + 2 * j]
    redis.call('ZADD', rk, now + ttl, rid .. ':' .. ARGV[a + 1])
    if redis.call('PTTL', rk) < ttl then redis.call('PEXPIRE', rk, ttl) end
    redis.call('HINCRBY', uk, 'r', est)
    if exp > 0 then redis.call('PEXPIREAT', uk, exp) end
  end
  a = a + 3
end
return out
`;

type Scripted = Redis & {
  aigwLimits(...args: (string | number)[]): Promise<number[]>;
};

const ALERTS: readonly AlertTransition[] = ['none', 'threshold', 'exhausted'];

/** Settlements per script call at most: one call must not hold Redis for long after a burst. */
const MAX_SETTLES_PER_CALL = 64;

/** Reservation keys sit beside their budget, in the same hash slot. */
export const reservationKey = (budgetKey: string) => `${budgetKey}:res`;

/** The hash tag of a key (`{<organisation>}`), '' without one: calls never mix two slots. */
function slotOf(key: string | undefined): string {
  if (key === undefined) return '';
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  return close < 0 ? '' : key.slice(open + 1, close);
}

interface PendingSettle {
  readonly input: SettleInput;
  readonly resolve: (out: SettleOutput) => void;
  readonly reject: (err: unknown) => void;
}

function pushSettle(keys: string[], args: (string | number)[], input: SettleInput): void {
  args.push(input.tokens.length, input.budgets.length, input.reservationId);
  for (const t of input.tokens) {
    keys.push(t.key);
    args.push(t.windowMs, t.amount);
  }
  for (const b of input.budgets) {
    keys.push(b.key, reservationKey(b.key));
    const mark = b.threshold >= 0 ? thresholdMark(b.threshold, b.limit) : '';
    args.push(b.reserved, b.actual, b.limit, b.threshold, mark, b.expireAtMs);
  }
}

/** Resolves the settlements of one call from its answer; returns where the admission part starts. */
function answerSettles(out: number[], settles: readonly PendingSettle[]): number {
  const nowMs = out[0] ?? 0;
  let at = 1;
  for (const { input, resolve } of settles) {
    const budgets = input.budgets.map((_, j) => ({
      usage: out[at + 2 * j] ?? 0,
      alert: ALERTS[out[at + 2 * j + 1] ?? 0] ?? 'none',
    }));
    at += 2 * input.budgets.length;
    resolve({ nowMs, budgets });
  }
  return at;
}

export function createRedisStore(redis: Redis): CounterStore {
  const client = redis as Scripted;
  // EVALSHA with a transparent EVAL on NOSCRIPT (ioredis); the key count is the first argument.
  if (typeof client.aigwLimits !== 'function') redis.defineCommand('aigwLimits', { lua: SCRIPT });
  /**
   * Settlements are off the response path: they wait for the end of the current turn of the event
   * loop, and go with the first admission of their organisation sent before then, or together in
   * one call. One call per request instead of two under load, and never later than that turn.
   */
  const pending = new Map<string, PendingSettle[]>();
  let flushScheduled = false;

  function flush() {
    flushScheduled = false;
    for (const [slot, waiting] of pending) {
      pending.delete(slot);
      for (let i = 0; i < waiting.length; i += MAX_SETTLES_PER_CALL)
        send(waiting.slice(i, i + MAX_SETTLES_PER_CALL));
    }
  }

  function send(settles: readonly PendingSettle[]) {
    const keys: string[] = [];
    const args: (string | number)[] = [settles.length];
    for (const p of settles) pushSettle(keys, args, p.input);
    args.push('0');
    client.aigwLimits(keys.length, ...keys, ...args).then(
      (out) => answerSettles(out, settles),
      (err) => {
        for (const p of settles) p.reject(err);
      },
    );
  }

  return {
    async admit(input: AdmitInput): Promise<AdmitOutput> {
      const first = input.rates[0]?.key ?? input.budgets[0]?.key;
      const slot = slotOf(first);
      const waiting = pending.get(slot);
      let settles: readonly PendingSettle[] = [];
      if (waiting) {
        settles = waiting.splice(0, MAX_SETTLES_PER_CALL);
        if (waiting.length === 0) pending.delete(slot);
      }
      const keys: string[] = [];
      const args: (string | number)[] = [settles.length];
      for (const p of settles) pushSettle(keys, args, p.input);
      args.push('1', input.rates.length, input.budgets.length, input.reservationId, input.reservationTtlMs);
      for (const r of input.rates) {
        keys.push(r.key);
        args.push(r.requests ? 1 : 0, r.limit, r.windowMs);
      }
      for (const b of input.budgets) {
        keys.push(b.key, reservationKey(b.key));
        args.push(b.limit, b.estimate, b.expireAtMs);
      }
      let out: number[];
      try {
        out = await client.aigwLimits(keys.length, ...keys, ...args);
      } catch (err) {
        for (const p of settles) p.reject(err);
        throw err;
      }
      const at = answerSettles(out, settles);
      const rateCounts = out.slice(at + 1, at + 1 + input.rates.length);
      const budgets = input.budgets.map((_, j) => {
        const b = at + 1 + input.rates.length + 3 * j;
        return { usage: out[b] ?? 0, reserved: out[b + 1] ?? 0, exhaustedAlert: out[b + 2] === 1 };
      });
      return { nowMs: out[0] ?? 0, admitted: out[at] === 1, rateCounts, budgets };
    },

    settle(input: SettleInput): Promise<SettleOutput> {
      return new Promise((resolve, reject) => {
        const slot = slotOf(input.tokens[0]?.key ?? input.budgets[0]?.key);
        let list = pending.get(slot);
        if (!list) {
          list = [];
          pending.set(slot, list);
        }
        list.push({ input, resolve, reject });
        if (!flushScheduled) {
          flushScheduled = true;
          setImmediate(flush);
        }
      });
    },
  };
}
