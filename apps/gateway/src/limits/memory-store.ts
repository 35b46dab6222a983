// Counters in this process: the store of a gateway without REDIS_URL, and the fallback while Redis
// is unreachable. Same rules as the Lua scripts (store.ts), with the local clock. `observe*` seed
// it with what Redis last said, so a fallback starts from the last known counts and budgets.
import {
  type AdmitInput,
  type AdmitOutput,
  type AlertTransition,
  type CounterStore,
  refuses,
  type SettleInput,
  type SettleOutput,
  thresholdMark,
  WINDOW_GRACE_MS,
} from './store.js';

interface RateState {
  w: number;
  n: number;
  expireAtMs: number;
}

interface BudgetState {
  u: number;
  r: number;
  /** reservation id -> amount and expiry */
  readonly held: Map<string, { amount: number; expireAtMs: number }>;
  x: string;
  t: string;
  expireAtMs: number;
}

export interface MemoryStore extends CounterStore {
  /** A window count Redis reported (kept only when it is ahead of ours). */
  observeRate(key: string, windowStartMs: number, count: number, windowMs: number): void;
  /** A budget usage Redis reported: the last known state used while Redis is down. */
  observeBudget(key: string, usage: number, expireAtMs: number): void;
  readonly size: number;
}

export interface MemoryStoreOptions {
  readonly now?: () => number;
  /** Above this many counters, expired ones are swept (then the oldest dropped). */
  readonly maxEntries?: number;
}

export function createMemoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? 100_000;
  const rates = new Map<string, RateState>();
  const budgets = new Map<string, BudgetState>();

  const count = (key: string, windowStart: number): number => {
    const state = rates.get(key);
    return state && state.w === windowStart ? state.n : 0;
  };
  const budget = (key: string, t: number): BudgetState => {
    let state = budgets.get(key);
    if (state && state.expireAtMs > 0 && state.expireAtMs <= t) {
      budgets.delete(key);
      state = undefined;
    }
    if (!state) {
      state = { u: 0, r: 0, held: new Map(), x: '', t: '', expireAtMs: 0 };
      budgets.set(key, state);
      sweep(t);
    }
    for (const [id, held] of state.held) {
      if (held.expireAtMs > t) continue;
      state.held.delete(id);
      state.r = Math.max(0, state.r - held.amount);
    }
    return state;
  };
  const charge = (key: string, windowStart: number, windowMs: number, amount: number) => {
    const state = rates.get(key);
    if (state && state.w === windowStart) state.n += amount;
    else {
      rates.set(key, { w: windowStart, n: amount, expireAtMs: windowStart + windowMs + WINDOW_GRACE_MS });
      sweep(windowStart);
    }
  };
  function sweep(t: number) {
    for (const map of [rates, budgets] as Map<string, { expireAtMs: number }>[]) {
      if (map.size <= maxEntries) continue;
      for (const [key, state] of map) if (state.expireAtMs > 0 && state.expireAtMs <= t) map.delete(key);
      // Still full: forget the oldest. A limiter that forgets is lenient, never stuck.
      for (const key of map.keys()) {
        if (map.size <= maxEntries) break;
        map.delete(key);
      }
    }
  }

  return {
    get size() {
      return rates.size + budgets.size;
    },

    observeRate(key, windowStartMs, n, windowMs) {
      const state = rates.get(key);
      if (state && state.w === windowStartMs && state.n >= n) return;
      if (state && state.w > windowStartMs) return;
      const expireAtMs = windowStartMs + windowMs + WINDOW_GRACE_MS;
      // Every admission on Redis lands here: the counter's record is updated in place once it exists.
      if (state) {
        state.w = windowStartMs;
        state.n = n;
        state.expireAtMs = expireAtMs;
        return;
      }
      rates.set(key, { w: windowStartMs, n, expireAtMs });
      sweep(windowStartMs);
    },

    observeBudget(key, usage, expireAtMs) {
      const state = budget(key, now());
      state.u = usage;
      state.expireAtMs = expireAtMs;
    },

    async admit(input: AdmitInput): Promise<AdmitOutput> {
      const t = now();
      let ok = true;
      const rateCounts = input.rates.map((r) => {
        const n = count(r.key, t - (t % r.windowMs));
        if (refuses.rate(r.requests, n, r.limit)) ok = false;
        return n;
      });
      const states = input.budgets.map((b) => budget(b.key, t));
      const out = input.budgets.map((b, j) => {
        const state = states[j] as BudgetState;
        const seen = { usage: state.u, reserved: state.r, exhaustedAlert: false };
        if (refuses.exhausted(state.u, b.limit)) {
          ok = false;
          if (state.x !== String(b.limit)) {
            state.x = String(b.limit);
            seen.exhaustedAlert = true;
          }
        } else if (refuses.inFlight(state.u, state.r, b.estimate, b.limit)) ok = false;
        return seen;
      });
      if (ok) {
        for (const r of input.rates) if (r.requests) charge(r.key, t - (t % r.windowMs), r.windowMs, 1);
        input.budgets.forEach((b, j) => {
          const state = states[j] as BudgetState;
          if (b.expireAtMs > 0) state.expireAtMs = b.expireAtMs;
          if (b.estimate <= 0) return;
          state.held.set(input.reservationId, { amount: b.estimate, expireAtMs: t + input.reservationTtlMs });
          state.r += b.estimate;
        });
      }
      return { nowMs: t, admitted: ok, rateCounts, budgets: out };
    },

    async settle(input: SettleInput): Promise<SettleOutput> {
      const t = now();
      for (const k of input.tokens) charge(k.key, t - (t % k.windowMs), k.windowMs, k.amount);
      const out = input.budgets.map((b) => {
        const state = budget(b.key, t);
        const held = state.held.get(input.reservationId);
        if (held) {
          state.held.delete(input.reservationId);
          state.r = Math.max(0, state.r - held.amount);
        }
        state.u += b.actual;
        if (b.expireAtMs > 0) state.expireAtMs = b.expireAtMs;
        let alert: AlertTransition = 'none';
        const mark = b.threshold >= 0 ? thresholdMark(b.threshold, b.limit) : '';
        if (state.u >= b.limit) {
          if (state.x !== String(b.limit)) {
            state.x = String(b.limit);
            if (mark) state.t = mark;
            alert = 'exhausted';
          }
        } else if (mark && state.u >= b.threshold && state.t !== mark) {
          state.t = mark;
          alert = 'threshold';
        }
        return { usage: state.u, alert };
      });
      return { nowMs: t, budgets: out };
    },
  };
}
