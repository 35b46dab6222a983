// The limits' Lua script and its wire layout: what one call sends (KEYS and ARGV built from the
// queued settlements and admissions) and how its answer is read back. redis-store.ts decides when
// calls go; this file decides what they say. Rate counters are fixed windows (hash {w: window
// start, n: count}); budgets are hashes {u: usage, r: reserved, x/t: alert marks} with a sorted set
// of reservations (`<id>:<amount>` scored by expiry) beside them.
import { createHash } from 'node:crypto';
import {
  type AdmitInput,
  type AdmitOutput,
  type AlertTransition,
  type SettleInput,
  type SettleOutput,
  thresholdMark,
  WINDOW_GRACE_MS,
} from './store.js';

// A call describes each distinct set of counters once (a "spec": keys, limits, windows, expiries)
// and each request by its spec and what is its own (reservation id, amounts): the requests of one
// API key share one spec, so a call of five requests carries each key once instead of five times.
// KEYS, in order: per settlement spec its token counters then (usage hash, reservation zset) per
// budget; then per admission spec its rate counters then (usage hash, reservation zset) per budget.
// ARGV: nSettleSpecs, nAdmitSpecs, nSettlements, nAdmissions; per settlement spec nTokens, nBudgets,
// per token counter windowMs, per budget (limit, threshold or -1, threshold mark, expireAtMs); per
// admission spec nRates, nBudgets, ttlMs, per rate (requests 1|0, limit, windowMs), per budget
// (limit, expireAtMs); per settlement its spec (1-based), reservationId, per token counter amount,
// per budget (reserved, actual); per admission its spec, reservationId, per budget its estimate.
// Returns {now, per settlement per budget (usage, alert), per admission: admitted, per rate its
// count, per budget (usage, reserved, exhaustedAlert)}. Refusal rules mirror store.ts `refuses`.
//
// Each counter is read once per call (when the first spec naming it is read), kept in Lua while the call's settlements and admissions run in
// order, and written once at the end: the requests of one API key share their counters, so a call
// of five requests costs about ten Redis commands instead of fifty (each command from a script costs
// Redis about as much as the command itself). Reservations leave their sorted set in one ZREM per
// set after the settlements, and join it in one ZADD per set at the end. A window's expiry is set
// when the window starts. Expired reservations (of a gateway that never settled) are dropped only
// when they could refuse an admission, and the reserved total is then counted again from the set.
export const SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local grace = ${WINDOW_GRACE_MS}
local out = {now}
local int = function(n) return string.format('%d', n) end
local rates, rateOrder = {}, {}
local function rate(key, win)
  local c = rates[key]
  if not c then
    local h = redis.call('HMGET', key, 'w', 'n')
    c = {w = tonumber(h[1]), n = tonumber(h[2]) or 0, dirty = false, fresh = false}
    rates[key] = c
    rateOrder[#rateOrder + 1] = key
  end
  local ws = now - now % win
  if c.w ~= ws then c.w, c.n, c.win, c.fresh = ws, 0, win, true end
  return c
end
local budgets, budgetOrder = {}, {}
local function budget(key)
  local c = budgets[key]
  if not c then
    local h = redis.call('HMGET', key, 'u', 'r', 'x', 't')
    c = {u = tonumber(h[1]) or 0, r = tonumber(h[2]) or 0, x = h[3], t = h[4], set = {}, exp = 0}
    budgets[key] = c
    budgetOrder[#budgetOrder + 1] = key
  end
  return c
end
local adds, addOrder = {}, {}
local function flushAdds(rk)
  local z = adds[rk]
  if not z or #z.args == 0 then return end
  redis.call('ZADD', rk, unpack(z.args))
  -- Never shortens a longer expiry (another replica's longer TTL); a new set has none yet.
  if redis.call('PEXPIRE', rk, z.ttl, 'GT') == 0 and redis.call('PTTL', rk) == -1 then
    redis.call('PEXPIRE', rk, z.ttl)
  end
  z.args = {}
end
-- The reservations still held, from the set itself (plus this call's, not added yet).
local function recount(rk)
  flushAdds(rk)
  local r = 0
  for _, m in ipairs(redis.call('ZRANGE', rk, 0, -1)) do r = r + (tonumber(string.match(m, ':(%d+)$')) or 0) end
  return r
end
local k, a = 0, 5
local settleSpecs, admitSpecs = {}, {}
for i = 1, tonumber(ARGV[1]) do
  local nt, nb = tonumber(ARGV[a]), tonumber(ARGV[a + 1])
  a = a + 2
  local spec = {tokens = {}, budgets = {}}
  for j = 1, nt do
    spec.tokens[j] = rate(KEYS[k + j], tonumber(ARGV[a]))
    a = a + 1
  end
  k = k + nt
  for j = 1, nb do
    spec.budgets[j] = {
      c = budget(KEYS[k + 2 * j - 1]), rk = KEYS[k + 2 * j], limitArg = ARGV[a], limit = tonumber(ARGV[a]),
      threshold = tonumber(ARGV[a + 1]), mark = ARGV[a + 2], exp = tonumber(ARGV[a + 3])
    }
    a = a + 4
  end
  k = k + 2 * nb
  settleSpecs[i] = spec
end
for i = 1, tonumber(ARGV[2]) do
  local nr, nb = tonumber(ARGV[a]), tonumber(ARGV[a + 1])
  local spec = {rates = {}, budgets = {}, ttl = tonumber(ARGV[a + 2])}
  a = a + 3
  for j = 1, nr do
    spec.rates[j] = {c = rate(KEYS[k + j], tonumber(ARGV[a + 2])), req = ARGV[a] == '1', limit = tonumber(ARGV[a + 1])}
    a = a + 3
  end
  k = k + nr
  for j = 1, nb do
    spec.budgets[j] = {c = budget(KEYS[k + 2 * j - 1]), rk = KEYS[k + 2 * j], limitArg = ARGV[a], limit = tonumber(ARGV[a]), exp = tonumber(ARGV[a + 1])}
    a = a + 2
  end
  k = k + 2 * nb
  admitSpecs[i] = spec
end
local removals, removalOrder = {}, {}
for s = 1, tonumber(ARGV[3]) do
  local spec, rid = settleSpecs[tonumber(ARGV[a])], ARGV[a + 1]
  a = a + 2
  local tokens, list = spec.tokens, spec.budgets
  for i = 1, #tokens do
    local c = tokens[i]
    c.n = c.n + tonumber(ARGV[a])
    c.dirty = true
    a = a + 1
  end
  for j = 1, #list do
    local b = list[j]
    local reserved, actual, limit = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), b.limit
    local c = b.c
    if reserved > 0 then
      local rk = b.rk
      local m = removals[rk]
      if not m then
        m = {budget = c, members = {}, released = 0}
        removals[rk] = m
        removalOrder[#removalOrder + 1] = rk
      end
      m.members[#m.members + 1] = rid .. ':' .. ARGV[a]
      m.released = m.released + reserved
    end
    if actual > 0 then
      c.u = c.u + actual
      c.set.u = true
    end
    local alert = 0
    if c.u >= limit then
      if c.x ~= b.limitArg then
        c.x = b.limitArg
        c.set.x = true
        if b.threshold >= 0 then
          c.t = b.mark
          c.set.t = true
        end
        alert = 2
      end
    elseif b.threshold >= 0 and c.u >= b.threshold and c.t ~= b.mark then
      c.t = b.mark
      c.set.t = true
      alert = 1
    end
    if b.exp > 0 and (actual > 0 or alert > 0) then c.exp = b.exp end
    a = a + 2
    out[#out + 1] = c.u
    out[#out + 1] = alert
  end
end
for _, rk in ipairs(removalOrder) do
  local m = removals[rk]
  local removed = redis.call('ZREM', rk, unpack(m.members))
  if removed > 0 then
    local c = m.budget
    if removed == #m.members then
      c.r = math.max(0, c.r - m.released)
    else
      -- Some had expired and were dropped already: count what is left instead.
      c.r = recount(rk)
    end
    c.set.r = true
  end
end
for q = 1, tonumber(ARGV[4]) do
  local spec, rid = admitSpecs[tonumber(ARGV[a])], ARGV[a + 1]
  local first = a + 2
  local specRates, list = spec.rates, spec.budgets
  local base = #out + 1
  out[base] = 1
  local ok = true
  for i = 1, #specRates do
    local r = specRates[i]
    local n = r.c.n
    out[#out + 1] = n
    if (r.req and n + 1 > r.limit) or ((not r.req) and n >= r.limit) then ok = false end
  end
  a = first
  for j = 1, #list do
    local b = list[j]
    local limit, est, exp = b.limit, tonumber(ARGV[a]), b.exp
    local c = b.c
    local alert = 0
    if c.u >= limit then
      ok = false
      if c.x ~= b.limitArg then
        c.x = b.limitArg
        c.set.x = true
        if exp > 0 then c.exp = exp end
        alert = 1
      end
    elseif c.r > 0 and c.u + c.r + est > limit then
      -- The reservations could refuse it: drop the expired ones and count the rest exactly.
      redis.call('ZREMRANGEBYSCORE', b.rk, '-inf', now)
      local r = recount(b.rk)
      if r ~= c.r then
        c.r = r
        c.set.r = true
      end
      if r > 0 and c.u + r + est > limit then ok = false end
    end
    a = a + 1
    out[#out + 1] = c.u
    out[#out + 1] = c.r
    out[#out + 1] = alert
  end
  if ok then
    for i = 1, #specRates do
      local r = specRates[i]
      if r.req then
        r.c.n = r.c.n + 1
        r.c.dirty = true
      end
    end
    a = first
    local ttl = spec.ttl
    for j = 1, #list do
      local b = list[j]
      local est = tonumber(ARGV[a])
      if est > 0 then
        local rk = b.rk
        local z = adds[rk]
        if not z then
          z = {args = {}, ttl = 0}
          adds[rk] = z
          addOrder[#addOrder + 1] = rk
        end
        z.args[#z.args + 1] = int(now + ttl)
        z.args[#z.args + 1] = rid .. ':' .. ARGV[a]
        if ttl > z.ttl then z.ttl = ttl end
        local c = b.c
        c.r = c.r + est
        c.set.r = true
        if b.exp > 0 then c.exp = b.exp end
      end
      a = a + 1
    end
  else
    out[base] = 0
  end
  a = first + #list
end
for _, key in ipairs(rateOrder) do
  local c = rates[key]
  if c.dirty then
    redis.call('HSET', key, 'w', int(c.w), 'n', int(c.n))
    if c.fresh then redis.call('PEXPIREAT', key, int(c.w + c.win + grace)) end
  end
end
for _, rk in ipairs(addOrder) do flushAdds(rk) end
for _, uk in ipairs(budgetOrder) do
  local c = budgets[uk]
  local fields = {}
  if c.set.u then fields[#fields + 1] = 'u'; fields[#fields + 1] = int(c.u) end
  if c.set.r then fields[#fields + 1] = 'r'; fields[#fields + 1] = int(c.r) end
  if c.set.x then fields[#fields + 1] = 'x'; fields[#fields + 1] = c.x end
  if c.set.t then fields[#fields + 1] = 't'; fields[#fields + 1] = c.t end
  if #fields > 0 then redis.call('HSET', uk, unpack(fields)) end
  if c.exp > 0 then redis.call('PEXPIREAT', uk, int(c.exp)) end
end
return out
`;
export const SCRIPT_SHA = createHash('sha1').update(SCRIPT).digest('hex');

const ALERTS: readonly AlertTransition[] = ['none', 'threshold', 'exhausted'];

/** Reservation keys sit beside their budget, in the same hash slot. */
export const reservationKey = (budgetKey: string) => `${budgetKey}:res`;

/** Same counters, limits, windows and expiries (what a spec describes): reservation and amounts may differ. */
function sameSettleSpec(x: SettleInput, y: SettleInput): boolean {
  if (x.tokens.length !== y.tokens.length || x.budgets.length !== y.budgets.length) return false;
  for (let i = 0; i < x.tokens.length; i++) {
    const p = x.tokens[i] as SettleInput['tokens'][number];
    const q = y.tokens[i] as SettleInput['tokens'][number];
    if (p.key !== q.key || p.windowMs !== q.windowMs) return false;
  }
  for (let j = 0; j < x.budgets.length; j++) {
    const p = x.budgets[j] as SettleInput['budgets'][number];
    const q = y.budgets[j] as SettleInput['budgets'][number];
    if (
      p.key !== q.key ||
      p.limit !== q.limit ||
      p.threshold !== q.threshold ||
      p.expireAtMs !== q.expireAtMs
    )
      return false;
  }
  return true;
}

function sameAdmitSpec(x: AdmitInput, y: AdmitInput): boolean {
  if (
    x.rates.length !== y.rates.length ||
    x.budgets.length !== y.budgets.length ||
    x.reservationTtlMs !== y.reservationTtlMs
  )
    return false;
  for (let i = 0; i < x.rates.length; i++) {
    const p = x.rates[i] as AdmitInput['rates'][number];
    const q = y.rates[i] as AdmitInput['rates'][number];
    if (p.key !== q.key || p.requests !== q.requests || p.limit !== q.limit || p.windowMs !== q.windowMs)
      return false;
  }
  for (let j = 0; j < x.budgets.length; j++) {
    const p = x.budgets[j] as AdmitInput['budgets'][number];
    const q = y.budgets[j] as AdmitInput['budgets'][number];
    if (p.key !== q.key || p.limit !== q.limit || p.expireAtMs !== q.expireAtMs) return false;
  }
  return true;
}

/** The 1-based spec of `input` among those of the call, appending it (and its keys and args) if new. */
function specOf<I>(specs: I[], input: I, same: (x: I, y: I) => boolean, push: (input: I) => void): number {
  for (let i = 0; i < specs.length; i++) if (same(specs[i] as I, input)) return i + 1;
  push(input);
  return specs.push(input);
}

/** A call's KEYS and ARGV (layout above SCRIPT). */
export function callArgs(
  settles: readonly { readonly input: SettleInput }[],
  admits: readonly { readonly input: AdmitInput }[],
) {
  const keys: string[] = [];
  const specArgs: (string | number)[] = [];
  const entryArgs: (string | number)[] = [];
  const settleSpecs: SettleInput[] = [];
  const pushSettleSpec = (input: SettleInput) => {
    specArgs.push(input.tokens.length, input.budgets.length);
    for (const t of input.tokens) {
      keys.push(t.key);
      specArgs.push(t.windowMs);
    }
    for (const b of input.budgets) {
      keys.push(b.key, reservationKey(b.key));
      const mark = b.threshold >= 0 ? thresholdMark(b.threshold, b.limit) : '';
      specArgs.push(b.limit, b.threshold, mark, b.expireAtMs);
    }
  };
  for (const { input } of settles) {
    entryArgs.push(specOf(settleSpecs, input, sameSettleSpec, pushSettleSpec), input.reservationId);
    for (const t of input.tokens) entryArgs.push(t.amount);
    for (const b of input.budgets) entryArgs.push(b.reserved, b.actual);
  }
  const admitSpecs: AdmitInput[] = [];
  const pushAdmitSpec = (input: AdmitInput) => {
    specArgs.push(input.rates.length, input.budgets.length, input.reservationTtlMs);
    for (const r of input.rates) {
      keys.push(r.key);
      specArgs.push(r.requests ? 1 : 0, r.limit, r.windowMs);
    }
    for (const b of input.budgets) {
      keys.push(b.key, reservationKey(b.key));
      specArgs.push(b.limit, b.expireAtMs);
    }
  };
  for (const { input } of admits) {
    entryArgs.push(specOf(admitSpecs, input, sameAdmitSpec, pushAdmitSpec), input.reservationId);
    for (const b of input.budgets) entryArgs.push(b.estimate);
  }
  const args: (string | number)[] = [settleSpecs.length, admitSpecs.length, settles.length, admits.length];
  for (const arg of specArgs) args.push(arg);
  for (const arg of entryArgs) args.push(arg);
  return { keys, args };
}

/** Resolves every request of one call from its answer (see SCRIPT for the layout). */
export function answer(
  out: number[],
  settles: readonly { readonly input: SettleInput; resolve(out: SettleOutput): void }[],
  admits: readonly { readonly input: AdmitInput; resolve(out: AdmitOutput): void }[],
): void {
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
  for (const { input, resolve } of admits) {
    const admitted = out[at] === 1;
    const rates = input.rates.length;
    const rateCounts = out.slice(at + 1, at + 1 + rates);
    const budgets = input.budgets.map((_, j) => {
      const b = at + 1 + rates + 3 * j;
      return { usage: out[b] ?? 0, reserved: out[b + 1] ?? 0, exhaustedAlert: out[b + 2] === 1 };
    });
    at += 1 + rates + 3 * input.budgets.length;
    resolve({ nowMs, admitted, rateCounts, budgets });
  }
}
