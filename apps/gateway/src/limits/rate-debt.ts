// Requests a Redis outage admitted locally, charged back to Redis when it returns. Without this the
// shared window would admit its whole limit again after the outage (16 admitted against 8/min in a
// 10 s outage). Only windows still current when Redis answers again are charged: an older window's
// counter is gone or reset anyway.
import type { SettleInput } from './store.js';

interface Debt {
  readonly windowMs: number;
  windowStart: number;
  count: number;
}

/** Bounded: an outage across many keys keeps at most this many counters to repay. */
const MAX_KEYS = 10_000;

export class RateDebt {
  private readonly debts = new Map<string, Debt>();

  get size(): number {
    return this.debts.size;
  }

  /** One request admitted locally on the `requests` counter `key` at `nowMs` (local clock). */
  add(key: string, windowMs: number, nowMs: number): void {
    const windowStart = nowMs - (nowMs % windowMs);
    const debt = this.debts.get(key);
    if (debt && debt.windowStart === windowStart) {
      debt.count++;
      return;
    }
    if (!debt && this.debts.size >= MAX_KEYS) return;
    this.debts.set(key, { windowMs, windowStart, count: 1 });
  }

  /**
   * What to charge now that Redis is back, as a settlement of counters (the script adds a
   * settlement's amounts to its current window), and forgets it: only the windows still current at
   * `nowMs` (the local clock, which decided them). Undefined: nothing to charge.
   */
  take(nowMs: number): SettleInput | undefined {
    if (this.debts.size === 0) return undefined;
    const tokens: { key: string; windowMs: number; amount: number }[] = [];
    for (const [key, debt] of this.debts) {
      if (debt.windowStart === nowMs - (nowMs % debt.windowMs))
        tokens.push({ key, windowMs: debt.windowMs, amount: debt.count });
    }
    this.debts.clear();
    return tokens.length === 0 ? undefined : { tokens, budgets: [], reservationId: '' };
  }
}
