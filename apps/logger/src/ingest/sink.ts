// What a stream's consumer needs to know about its payload: how to read a message into items and
// how to store items in a transaction. The consumer does batching, dead letters and acks.
import type { Kysely } from 'kysely';
import type { LogsDatabase } from '../db/schema.js';

export interface SinkItem<T> {
  /** Position of the item in its message (0 for single-event messages). */
  readonly index: number;
  readonly id: string;
  readonly value: T;
  /** Bytes kept in dead_letters when this item alone cannot be stored. */
  payload(): Uint8Array;
}

export interface SinkReject {
  readonly index: number;
  readonly id: string | null;
  readonly error: string;
  readonly payload: Uint8Array;
}

export interface Decoded<T> {
  readonly items: SinkItem<T>[];
  /** Items that are unreadable or invalid on their own: dead-lettered, the rest is stored. */
  readonly rejects: SinkReject[];
}

export interface StoreOutcome {
  readonly inserted: number;
  readonly duplicates: number;
}

export interface Sink<T> {
  /** Label of metrics and logs (`requests`, `audit`, `alerts`). */
  readonly name: string;
  /** Throws when the whole message is unreadable (it becomes one dead letter). */
  decode(data: Uint8Array): Decoded<T>;
  /** Stores items idempotently; runs inside the batch's transaction. */
  store(trx: Kysely<LogsDatabase>, values: T[]): Promise<StoreOutcome>;
  /**
   * A reduced value stored instead when Postgres refuses `value` on its data; without it (or when
   * that is refused too) the item becomes a dead letter. Audit records use it: never dropped.
   */
  reduce?(value: T, error: string): T;
  /**
   * A value standing for a dead letter, stored with it in the same transaction (audit: so the gap in
   * the trail shows where the trail is read). Must be storable whatever the payload holds.
   */
  deadLetterRecord?(facts: DeadLetterFacts): T;
  /** Dead letters of this stream are an incident (logged at error, not warn): the audit trail. */
  readonly critical?: boolean;
}

/** A dead letter about to be stored, for `Sink.deadLetterRecord`. */
export interface DeadLetterFacts {
  readonly stream: string;
  readonly seq: number;
  readonly index: number;
  readonly error: string;
  readonly payload: Uint8Array;
}

/** Sink items one by one: decode a single-event message. */
export function decodeOne<E, T>(
  data: Uint8Array,
  read: (data: Uint8Array) => E,
  check: (event: E) => string | undefined,
  id: (event: E) => string,
  toValue: (event: E) => T,
): Decoded<T> {
  const event = read(data);
  const error = check(event);
  if (error) return { items: [], rejects: [{ index: 0, id: id(event) || null, error, payload: data }] };
  return { items: [{ index: 0, id: id(event), value: toValue(event), payload: () => data }], rejects: [] };
}
