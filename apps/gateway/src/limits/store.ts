// The counter store contract shared by Redis (exact across replicas) and the in-process fallback:
// one all-or-nothing admission over every applicable counter, and one settlement after the call.

export interface RateCounter {
  readonly key: string;
  /** `requests` counters are charged 1 at admission; `tokens` ones only checked (usage so far). */
  readonly requests: boolean;
  readonly limit: number;
  readonly windowMs: number;
}

export interface BudgetCounter {
  readonly key: string;
  readonly limit: number;
  readonly estimate: number;
  /** When the counter may be dropped (period end plus a grace); 0 = never. */
  readonly expireAtMs: number;
}

export interface AdmitInput {
  readonly rates: readonly RateCounter[];
  readonly budgets: readonly BudgetCounter[];
  /** Unique per admission; its reservations are released by settle or expire after the TTL. */
  readonly reservationId: string;
  readonly reservationTtlMs: number;
}

export interface AdmitOutput {
  /** The store's clock (Redis TIME) at the decision. */
  readonly nowMs: number;
  /** False when any counter refused: nothing was charged or reserved. */
  readonly admitted: boolean;
  /** Count in the current window before this admission, per rate counter. */
  readonly rateCounts: readonly number[];
  /** Usage and live reservations before this admission, per budget. */
  readonly budgets: readonly { usage: number; reserved: number; exhaustedAlert: boolean }[];
}

export interface SettleInput {
  readonly tokens: readonly { key: string; windowMs: number; amount: number }[];
  readonly budgets: readonly {
    key: string;
    /** What admission reserved (0: nothing to release). */
    reserved: number;
    actual: number;
    limit: number;
    /** -1 when the limit has no alert threshold. */
    threshold: number;
    expireAtMs: number;
  }[];
  readonly reservationId: string;
}

export type AlertTransition = 'none' | 'threshold' | 'exhausted';

export interface SettleOutput {
  readonly nowMs: number;
  readonly budgets: readonly { usage: number; alert: AlertTransition }[];
}

export interface CounterStore {
  admit(input: AdmitInput): Promise<AdmitOutput>;
  settle(input: SettleInput): Promise<SettleOutput>;
}

/** Refusal rules, shared by both stores and by the reporting of which counter refused. */
export const refuses = {
  rate: (requests: boolean, count: number, limit: number) => (requests ? count + 1 > limit : count >= limit),
  exhausted: (usage: number, limit: number) => usage >= limit,
  /**
   * Reservations of requests in flight hold the rest of the budget. With nothing in flight a
   * request below the limit is admitted whatever its estimate: otherwise a budget whose remainder
   * is smaller than one estimate could never be used up, nor ever be reported exhausted.
   */
  inFlight: (usage: number, reserved: number, estimate: number, limit: number) =>
    reserved > 0 && usage + reserved + estimate > limit,
};

/** `<threshold>/<limit>`: a threshold alert is raised once per pair, so raising the limit re-arms it. */
export const thresholdMark = (threshold: number, limit: number) => `${threshold}/${limit}`;

/** Counters outlive their window by this much (clock skew between Redis and gateways). */
export const WINDOW_GRACE_MS = 60_000;
