// Turns the events handed to the publisher into JetStream batches: builds the lazy ones, encodes each
// batch of up to MAX_BATCH_EVENTS in one pass, and goes event by event when a batch would pass
// MAX_BATCH_BYTES or holds an event that cannot be built or encoded.
import type { RequestEvent } from '@aigw/proto';
import { batchMsgId, frameBatches, MAX_BATCH_BYTES, MAX_BATCH_EVENTS } from './batch.js';
import type { EventEncoder } from './event-encoder.js';

/**
 * An event built only when the pump takes it (or when it must go to the spool): building one, like
 * encoding it, costs less in a batch than one by one on the request path. It must not depend on
 * when it is called (take timestamps and freeze what it reads before handing it over).
 */
export type LazyRequestEvent = () => RequestEvent;

export interface EncodedBatch {
  /** The batch's Nats-Msg-Id. */
  readonly id: string;
  readonly bytes: Uint8Array;
  /** Events in the batch. */
  readonly count: number;
  /** The batch framed as the journal's record (spool-record.ts), `bytes` a view into it; else undefined. */
  readonly frame?: Buffer | undefined;
}

/** The batches, in order; each event that cannot be built or encoded goes to `failed` instead. */
export function encodeBatches(
  encoder: EventEncoder,
  pending: readonly (RequestEvent | LazyRequestEvent)[],
  failed: (err: unknown) => void,
): EncodedBatch[] {
  const ready: RequestEvent[] = [];
  for (const event of pending) {
    try {
      ready.push(typeof event === 'function' ? event() : event);
    } catch (err) {
      failed(err);
    }
  }
  const batches: EncodedBatch[] = [];
  for (let start = 0; start < ready.length; ) {
    const events = ready.slice(start, start + MAX_BATCH_EVENTS);
    const id = batchMsgId(events[0]!.id, events.length);
    let encoded: ReturnType<EventEncoder['batchRecord']>;
    try {
      encoded = encoder.batchRecord(events, MAX_BATCH_BYTES, id);
    } catch {
      // A record the journal would refuse (an id or a batch too large): event by event, as for any
      // batch that cannot be encoded whole.
      encoded = undefined;
    }
    if (!encoded) {
      batches.push(...eachAlone(encoder, ready.slice(start), failed));
      break;
    }
    batches.push({ id, bytes: encoded.payload, count: events.length, frame: encoded.frame });
    start += events.length;
  }
  return batches;
}

/** The same batches from events encoded one by one. */
function eachAlone(
  encoder: EventEncoder,
  events: readonly RequestEvent[],
  failed: (err: unknown) => void,
): EncodedBatch[] {
  const encoded: { id: string; bytes: Uint8Array }[] = [];
  for (const event of events) {
    try {
      encoded.push({ id: event.id, bytes: encoder.one(event) });
    } catch (err) {
      failed(err);
    }
  }
  return frameBatches(encoded);
}
