// Counters in Redis: admission and settlement are each ONE Lua call over every applicable counter,
// timed by Redis TIME, so decisions are exact across gateway replicas. Rate counters are fixed
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

// KEYS: rate counters, then (usage hash, reservation zset) per budget.
// ARGV: nRates, nBudgets, reservationId, ttlMs, then per rate (requests 1|0, limit, windowMs),
// then per budget (limit, estimate, expireAtMs). Refusal rules mirror store.ts `refuses`.
const ADMIT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local nr, nb, rid, ttl = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
local out = {now, 1}
local ok = true
local a = 5
for i = 1, nr do
  local req, limit, win = ARGV[a] == '1', tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  a = a + 3
  local h = redis.call('HMGET', KEYS[i], 'w', 'n')
  local n = 0
  if tonumber(h[1]) == now - now % win then n = tonumber(h[2]) or 0 end
  out[#out + 1] = n
  if (req and n + 1 > limit) or ((not req) and n >= limit) then ok = false end
end
for j = 1, nb do
  local uk, rk = KEYS[nr + 2 * j - 1], KEYS[nr + 2 * j]
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
  out[2] = 0
  return out
end
a = 5
for i = 1, nr do
  if ARGV[a] == '1' then
    local win = tonumber(ARGV[a + 2])
    local ws = now - now % win
    if out[2 + i] == 0 then
      redis.call('HSET', KEYS[i], 'w', ws, 'n', 1)
    else
      redis.call('HINCRBY', KEYS[i], 'n', 1)
    end
    redis.call('PEXPIREAT', KEYS[i], ws + win + ${WINDOW_GRACE_MS})
  end
  a = a + 3
end
for j = 1, nb do
  local est, exp = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  if est > 0 then
    local uk, rk = KEYS[nr + 2 * j - 1], KEYS[nr + 2 * j]
    redis.call('ZADD', rk, now + ttl, rid .. ':' .. ARGV[a + 1])
    if redis.call('PTTL', rk) < ttl then redis.call('PEXPIRE', rk, ttl) end
    redis.call('HINCRBY', uk, 'r', est)
    if exp > 0 then redis.call('PEXPIREAT', uk, exp) end
  end
  a = a + 3
end
return out
`;

// KEYS: token counters, then (usage hash, reservation zset) per budget.
// ARGV: nTokens, nBudgets, reservationId, then per token counter (windowMs, amount), then per
// budget (reserved, actual, limit, threshold or -1, threshold mark, expireAtMs).
const SETTLE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local nt, nb, rid = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local out = {now}
local a = 4
for i = 1, nt do
  local win, amount = tonumber(ARGV[a]), tonumber(ARGV[a + 1])
  a = a + 2
  local ws = now - now % win
  if tonumber(redis.call('HGET', KEYS[i], 'w')) == ws then
    redis.call('HINCRBY', KEYS[i], 'n', amount)
  else
    redis.call('HSET', KEYS[i], 'w', ws, 'n', amount)
  end
  redis.call('PEXPIREAT', KEYS[i], ws + win + ${WINDOW_GRACE_MS})
end
for j = 1, nb do
  local uk, rk = KEYS[nt + 2 * j - 1], KEYS[nt + 2 * j]
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
return out
`;

type Scripted = Redis & {
  aigwLimitsAdmit(...args: (string | number)[]): Promise<number[]>;
  aigwLimitsSettle(...args: (string | number)[]): Promise<number[]>;
};

const ALERTS: readonly AlertTransition[] = ['none', 'threshold', 'exhausted'];

/** Reservation keys sit beside their budget, in the same hash slot. */
export const reservationKey = (budgetKey: string) => `${budgetKey}:res`;

export function createRedisStore(redis: Redis): CounterStore {
  const client = redis as Scripted;
  // EVALSHA with a transparent EVAL on NOSCRIPT (ioredis); the key count is the first argument.
  if (typeof client.aigwLimitsAdmit !== 'function') {
    redis.defineCommand('aigwLimitsAdmit', { lua: ADMIT });
    redis.defineCommand('aigwLimitsSettle', { lua: SETTLE });
  }
  return {
    async admit(input: AdmitInput): Promise<AdmitOutput> {
      const keys: string[] = input.rates.map((r) => r.key);
      const args: (string | number)[] = [
        input.rates.length,
        input.budgets.length,
        input.reservationId,
        input.reservationTtlMs,
      ];
      for (const r of input.rates) args.push(r.requests ? 1 : 0, r.limit, r.windowMs);
      for (const b of input.budgets) {
        keys.push(b.key, reservationKey(b.key));
        args.push(b.limit, b.estimate, b.expireAtMs);
      }
      const out = await client.aigwLimitsAdmit(keys.length, ...keys, ...args);
      const rateCounts = out.slice(2, 2 + input.rates.length);
      const budgets = input.budgets.map((_, j) => {
        const at = 2 + input.rates.length + 3 * j;
        return { usage: out[at] ?? 0, reserved: out[at + 1] ?? 0, exhaustedAlert: out[at + 2] === 1 };
      });
      return { nowMs: out[0] ?? 0, admitted: out[1] === 1, rateCounts, budgets };
    },

    async settle(input: SettleInput): Promise<SettleOutput> {
      const keys: string[] = input.tokens.map((t) => t.key);
      const args: (string | number)[] = [input.tokens.length, input.budgets.length, input.reservationId];
      for (const t of input.tokens) args.push(t.windowMs, t.amount);
      for (const b of input.budgets) {
        keys.push(b.key, reservationKey(b.key));
        const mark = b.threshold >= 0 ? thresholdMark(b.threshold, b.limit) : '';
        args.push(b.reserved, b.actual, b.limit, b.threshold, mark, b.expireAtMs);
      }
      const out = await client.aigwLimitsSettle(keys.length, ...keys, ...args);
      const budgets = input.budgets.map((_, j) => ({
        usage: out[1 + 2 * j] ?? 0,
        alert: ALERTS[out[2 + 2 * j] ?? 0] ?? 'none',
      }));
      return { nowMs: out[0] ?? 0, budgets };
    },
  };
}
