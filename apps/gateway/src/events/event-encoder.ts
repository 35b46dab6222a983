// Encodes RequestEvents with one reused protobuf writer: a new writer starts small and reallocates
// its buffer several times per event, which costs more than the encoding itself.
import { RequestEvent } from '@aigw/proto';

type Writer = ReturnType<typeof RequestEvent.encode>;

/** A writer's buffer keeps the size of the largest event it wrote: a larger one is not kept. */
const MAX_KEPT_WRITER_BYTES = 1024 * 1024;

/** An empty writer (its class is not exported by @aigw/proto). */
function freshWriter(): Writer {
  const writer = RequestEvent.encode(RequestEvent.fromPartial({}));
  writer.finish();
  return writer;
}

/** `(event) => bytes`, the same bytes as `RequestEvent.encode(event).finish()`; throws like it. */
export function eventEncoder(): (event: RequestEvent) => Uint8Array {
  let writer = freshWriter();
  return (event) => {
    let bytes: Uint8Array;
    try {
      // finish() copies the bytes out and resets the writer, keeping its buffer.
      bytes = RequestEvent.encode(event, writer).finish();
    } catch (err) {
      // A failed encode leaves the writer mid-message: start over with a fresh one.
      writer = freshWriter();
      throw err;
    }
    if (bytes.length > MAX_KEPT_WRITER_BYTES) writer = freshWriter();
    return bytes;
  };
}
