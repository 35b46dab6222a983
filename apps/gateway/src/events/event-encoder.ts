// Encodes RequestEvents, alone or as a whole RequestEventBatch, with one reused protobuf writer: a
// new writer starts small and reallocates its buffer several times per event, and copying each
// event out before framing it into a batch costs as much again.
import { RequestEvent, RequestEventBatch, SCHEMA_VERSION } from '@aigw/proto';

type Writer = ReturnType<typeof RequestEvent.encode>;

/** A writer's buffer keeps the size of the largest message it wrote: a larger one is not kept. */
const MAX_KEPT_WRITER_BYTES = 1024 * 1024;
/** `schema_version` (field 1, varint) ahead of the events in a batch. */
const BATCH_HEADER_BYTES = RequestEventBatch.encode({ schemaVersion: SCHEMA_VERSION, events: [] }).finish()
  .length;

/** An empty writer (its class is not exported by @aigw/proto). */
function freshWriter(): Writer {
  const writer = RequestEvent.encode(RequestEvent.fromPartial({}));
  writer.finish();
  return writer;
}

export interface EventEncoder {
  /** The same bytes as `RequestEvent.encode(event).finish()`; throws like it. */
  one(event: RequestEvent): Uint8Array;
  /**
   * `RequestEventBatch { schema_version, events }`, the same bytes as frameBatch() of each event
   * encoded alone, when the framed events fit `maxEventBytes` (one event always fits). Undefined
   * when they do not, or when an event cannot be encoded: the caller then goes event by event.
   */
  batch(events: RequestEvent[], maxEventBytes: number): Uint8Array | undefined;
}

export function eventEncoder(): EventEncoder {
  let writer = freshWriter();
  // finish() copies the bytes out and resets the writer, keeping its buffer.
  const finish = (): Uint8Array => {
    const bytes = writer.finish();
    if (bytes.length > MAX_KEPT_WRITER_BYTES) writer = freshWriter();
    return bytes;
  };
  return {
    one(event) {
      try {
        RequestEvent.encode(event, writer);
      } catch (err) {
        // A failed encode leaves the writer mid-message: start over with a fresh one.
        writer = freshWriter();
        throw err;
      }
      return finish();
    },
    batch(events, maxEventBytes) {
      try {
        RequestEventBatch.encode({ schemaVersion: SCHEMA_VERSION, events }, writer);
      } catch {
        writer = freshWriter();
        return undefined;
      }
      const bytes = finish();
      return events.length > 1 && bytes.length - BATCH_HEADER_BYTES > maxEventBytes ? undefined : bytes;
    },
  };
}
