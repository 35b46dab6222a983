// Encodes RequestEvents, alone or as a whole RequestEventBatch, into one reused buffer with the
// hand-written writer (request-event-writer.ts): ts-proto's generated encode copied every
// submessage through fork/join and sent each 64-bit number through BigInt, which made it the
// largest single cost of a request event. An event holding a value the writer leaves to ts-proto is
// encoded by ts-proto, so the bytes, and what throws, stay the generated encode's.
import { RequestEvent, SCHEMA_VERSION } from '@aigw/proto';
import { ProtoWriter } from './proto-writer.js';
import { writeRequestEvent } from './request-event-writer.js';
import { recordHeadBytes, sealRecord, writeRecordHead } from './spool-record.js';

/** RequestEventBatch fields: schema_version (1, varint) and events (2, length-delimited). */
const BATCH_SCHEMA_TAG = 0x08;
const BATCH_EVENTS_TAG = 0x12;

export interface EventEncoder {
  /** The same bytes as `RequestEvent.encode(event).finish()`; throws like it. */
  one(event: RequestEvent): Uint8Array;
  /**
   * `RequestEventBatch { schema_version, events }`, the same bytes as frameBatch() of each event
   * encoded alone, when the framed events fit `maxEventBytes` (one event always fits). Undefined
   * when they do not, or when an event cannot be encoded: the caller then goes event by event.
   */
  batch(events: RequestEvent[], maxEventBytes: number): Uint8Array | undefined;
  /**
   * The same batch already framed as the journal's record of message id `msgId` (spool-record.ts),
   * written in place: the journal writes `frame` as it is and `payload` (the batch, a view into it)
   * is what goes to JetStream, instead of encoding the batch and then copying it into a record.
   */
  batchRecord(
    events: RequestEvent[],
    maxEventBytes: number,
    msgId: string,
  ): { readonly frame: Buffer; readonly payload: Buffer } | undefined;
}

export function eventEncoder(): EventEncoder {
  const w = new ProtoWriter();

  /** Writes one event's fields at the writer's position; ts-proto's bytes when the writer declines. */
  const writeEvent = (event: RequestEvent): void => {
    const start = w.pos;
    try {
      writeRequestEvent(w, event);
    } catch {
      w.rewind(start);
      const bytes = RequestEvent.encode(event).finish();
      w.ensure(bytes.length);
      w.buf.set(bytes, w.pos);
      w.pos += bytes.length;
    }
  };

  return {
    one(event) {
      try {
        writeEvent(event);
      } catch (err) {
        w.reset();
        throw err;
      }
      return w.take();
    },
    batch(events, maxEventBytes) {
      return writeBatch(events, maxEventBytes) ? w.take() : undefined;
    },
    batchRecord(events, maxEventBytes, msgId) {
      const head = recordHeadBytes(msgId);
      w.ensure(head);
      writeRecordHead(w.buf, 0, msgId);
      w.pos = head;
      if (!writeBatch(events, maxEventBytes)) return undefined;
      // sealRecord may throw (too large): the writer must be empty for the next batch all the same.
      const frame = w.take() as Buffer;
      return { frame: sealRecord(frame), payload: frame.subarray(head) };
    },
  };

  /** The batch at the writer's position; false (and the writer reset) when it cannot be encoded or is too big. */
  function writeBatch(events: RequestEvent[], maxEventBytes: number): boolean {
    if ((SCHEMA_VERSION as number) !== 0) {
      w.varint32(BATCH_SCHEMA_TAG);
      w.varint32(SCHEMA_VERSION);
    }
    const header = w.pos;
    try {
      for (const event of events) {
        const at = w.open(BATCH_EVENTS_TAG);
        writeEvent(event);
        w.close(at);
      }
    } catch {
      w.reset();
      return false;
    }
    if (events.length > 1 && w.pos - header > maxEventBytes) {
      w.reset();
      return false;
    }
    return true;
  }
}
