// Counters in Redis: every admission and settlement is decided inside ONE Lua script call, timed by
// Redis TIME, so decisions are exact across gateway replicas. The script, its counters and what a
// call sends are in counter-script.ts; this file decides when calls go.
//
// Calls are batched per organisation (one hash slot): what is asked during one turn of the event
// loop, or while the previous call of that organisation is in flight, goes in the next call, the
// settlements first and then each admission in order, each one all-or-nothing on its own. Under
// load that is one script call and one socket write for several requests (bench: the script's
// fixed cost and the client's per-command work were about half of the limits' cost). Settlements
// alone wait a few milliseconds for an admission to ride with (SETTLE_WAIT_MS).
import type { Redis } from 'ioredis';
import { answer, callArgs, SCRIPT, SCRIPT_SHA } from './counter-script.js';
import { EncodedCommand, encodeScriptCall } from './resp-command.js';
import type { AdmitInput, AdmitOutput, CounterStore, SettleInput, SettleOutput } from './store.js';

/** Settlements, and admissions, per script call at most: one call must not hold Redis for long. */
const MAX_PER_CALL = 64;

/**
 * How long settlements wait for an admission of their organisation to ride with, at most (a
 * quarter of the deadline if that is shorter). Nothing waits on a settlement (the response is sent):
 * its usage shows in Redis up to this much later, while its reservation still holds the budget.
 */
const SETTLE_WAIT_MS = 5;

/** The hash tag of a key (`{<organisation>}`), '' without one: calls never mix two slots. */
function slotOf(key: string | undefined): string {
  if (key === undefined) return '';
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  return close < 0 ? '' : key.slice(open + 1, close);
}

interface Pending<I, O> {
  readonly input: I;
  /** performance.now() when asked: the deadline runs from here, not from when the call is sent. */
  readonly at: number;
  readonly resolve: (out: O) => void;
  readonly reject: (err: unknown) => void;
}
type PendingSettle = Pending<SettleInput, SettleOutput>;
type PendingAdmit = Pending<AdmitInput, AdmitOutput>;

/** What one organisation waits for: queued work, and whether its previous call is unanswered. */
interface Slot {
  readonly name: string;
  settles: PendingSettle[];
  admits: PendingAdmit[];
  busy: boolean;
  /** Armed while only settlements wait (SETTLE_WAIT_MS). */
  settleTimer: NodeJS.Timeout | undefined;
}

export interface RedisStoreOptions {
  /**
   * Longest wait for an answer, counted from when the admission or settlement was asked (a request
   * queued behind an unanswered call waits no longer): then it fails with a timeout error.
   */
  readonly timeoutMs: number;
}

export function createRedisStore(
  redis: Redis,
  options: RedisStoreOptions = { timeoutMs: 1_000 },
): CounterStore {
  const { timeoutMs } = options;
  const settleWaitMs = Math.min(SETTLE_WAIT_MS, timeoutMs / 4);
  // Prefix handling as for any other command of this client (tests namespace their keys with it).
  const keyPrefix = redis.options.keyPrefix ?? '';
  const slots = new Map<string, Slot>();
  const ready = new Set<Slot>();
  let scheduled = false;

  function slotFor(key: string | undefined): Slot {
    const name = slotOf(key);
    let slot = slots.get(name);
    if (!slot) {
      slot = { name, settles: [], admits: [], busy: false, settleTimer: undefined };
      slots.set(name, slot);
    }
    return slot;
  }

  /** Sends at the end of this turn, unless a call of the slot is in flight (then when it is answered). */
  function wake(slot: Slot) {
    if (slot.busy) return;
    ready.add(slot);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flushReady);
    }
  }

  /** Settlements alone go after a short wait, with the admissions asked meanwhile if any. */
  function later(slot: Slot) {
    if (slot.busy) return;
    if (slot.settles.length >= MAX_PER_CALL) return wake(slot);
    if (slot.settleTimer) return;
    slot.settleTimer = setTimeout(() => {
      slot.settleTimer = undefined;
      wake(slot);
    }, settleWaitMs);
  }

  function flushReady() {
    scheduled = false;
    for (const slot of ready) drain(slot);
    ready.clear();
  }

  function drain(slot: Slot) {
    if (slot.settleTimer) {
      clearTimeout(slot.settleTimer);
      slot.settleTimer = undefined;
    }
    // What waited its whole deadline behind an unanswered call fails here rather than being sent:
    // its caller has moved on, and Redis must not apply it later.
    const late = performance.now() - timeoutMs;
    if ((slot.settles[0]?.at ?? late) < late) slot.settles = expire(slot.settles, late);
    if ((slot.admits[0]?.at ?? late) < late) slot.admits = expire(slot.admits, late);
    while (slot.settles.length > 0 || slot.admits.length > 0) {
      send(slot, slot.settles.splice(0, MAX_PER_CALL), slot.admits.splice(0, MAX_PER_CALL));
    }
  }

  /** Rejects the queued requests asked before `late` (the queue is in asking order); returns the rest. */
  function expire<T extends { readonly at: number; reject(err: unknown): void }>(
    queue: T[],
    late: number,
  ): T[] {
    let i = 0;
    while (i < queue.length && (queue[i] as T).at < late) i++;
    const error = timeoutError();
    for (const p of queue.slice(0, i)) p.reject(error);
    return queue.slice(i);
  }

  function timeoutError() {
    return new Error(`no answer from Redis within ${timeoutMs} ms`);
  }

  function send(slot: Slot, settles: PendingSettle[], admits: PendingAdmit[]) {
    const { keys, args } = callArgs(settles, admits);
    // Both queues are in asking order: their heads are the oldest requests of the call.
    const oldest = Math.min(
      settles[0]?.at ?? Number.POSITIVE_INFINITY,
      admits[0]?.at ?? Number.POSITIVE_INFINITY,
    );
    slot.busy = true;
    let done = false;
    const finish = () => {
      if (done) return false;
      done = true;
      clearTimeout(timer);
      slot.busy = false;
      if (slot.admits.length > 0) drain(slot);
      else if (slot.settles.length > 0) later(slot);
      else if (slots.get(slot.name) === slot) slots.delete(slot.name);
      return true;
    };
    const fail = (err: unknown) => {
      if (!finish()) return;
      for (const p of settles) p.reject(err);
      for (const p of admits) p.reject(err);
    };
    const timer = setTimeout(() => fail(timeoutError()), Math.max(0, oldest + timeoutMs - performance.now()));
    call('evalsha', SCRIPT_SHA, keys, args).then(
      (out) => {
        if (finish()) answer(out, settles, admits);
      },
      (err: unknown) => {
        if (done) return;
        if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) return fail(err);
        // A restarted or flushed Redis: EVAL loads the script again for the next EVALSHA.
        call('eval', SCRIPT, keys, args).then((out) => {
          if (finish()) answer(out, settles, admits);
        }, fail);
      },
    );
  }

  function call(name: 'evalsha' | 'eval', head: string, keys: string[], args: (string | number)[]) {
    const command = new EncodedCommand(name, encodeScriptCall(name, head, keys, args, keyPrefix));
    // sendCommand, not a defined script command: the batching above replaces the client's own
    // auto-pipelining (one more turn of the event loop and one more pipeline object per call).
    void redis.sendCommand(command);
    return command.promise as Promise<number[]>;
  }

  return {
    admit(input: AdmitInput): Promise<AdmitOutput> {
      return new Promise((resolve, reject) => {
        const slot = slotFor(input.rates[0]?.key ?? input.budgets[0]?.key);
        slot.admits.push({ input, at: performance.now(), resolve, reject });
        wake(slot);
      });
    },

    settle(input: SettleInput): Promise<SettleOutput> {
      return new Promise((resolve, reject) => {
        const slot = slotFor(input.tokens[0]?.key ?? input.budgets[0]?.key);
        slot.settles.push({ input, at: performance.now(), resolve, reject });
        if (slot.admits.length > 0) wake(slot);
        else later(slot);
      });
    },
  };
}
