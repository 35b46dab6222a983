// Protobuf wire-level reading of a RequestEventBatch: each event's own bytes, and those bytes
// without the two body fields. Storing the bytes as they came (instead of re-encoding the decoded
// event) saves the logger an encode per event and keeps fields a newer gateway added.

/** RequestEventBatch: schema_version = 1 (varint), events = 2 (message). */
const BATCH_SCHEMA_VERSION = 1;
const BATCH_EVENTS = 2;
/** RequestEvent: request_body = 31, response_body = 32 (both CapturedBody). */
const BODY_FIELDS = new Set([31, 32]);

const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;
const FIXED32 = 5;

export interface WireBatch {
  readonly schemaVersion: number;
  /** Each event's bytes: views into the message, not copies. */
  readonly events: Uint8Array[];
}

class WireError extends Error {}

/** Reads a varint at `at`; returns [value, next offset]. Values above 2^53 are not expected here. */
function varint(data: Uint8Array, at: number): [number, number] {
  let value = 0;
  let scale = 1;
  for (let i = at; i < data.length && i < at + 10; i++) {
    const byte = data[i] as number;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return [value, i + 1];
    scale *= 128;
  }
  throw new WireError('truncated varint');
}

/** Calls `field` for each top-level field of `data` with its number and byte range (tag included). */
function eachField(
  data: Uint8Array,
  field: (number: number, start: number, valueStart: number, end: number, wireType: number) => void,
): void {
  let at = 0;
  while (at < data.length) {
    const start = at;
    const [tag, afterTag] = varint(data, at);
    const wireType = tag & 7;
    const number = Math.floor(tag / 8);
    if (number === 0) throw new WireError('field number 0');
    let end: number;
    let valueStart = afterTag;
    if (wireType === VARINT) end = varint(data, afterTag)[1];
    else if (wireType === FIXED64) end = afterTag + 8;
    else if (wireType === FIXED32) end = afterTag + 4;
    else if (wireType === LENGTH_DELIMITED) {
      const [length, afterLength] = varint(data, afterTag);
      valueStart = afterLength;
      end = afterLength + length;
    } else throw new WireError(`unsupported wire type ${wireType}`);
    if (end > data.length) throw new WireError('field runs past the end of the message');
    field(number, start, valueStart, end, wireType);
    at = end;
  }
}

/** Splits a RequestEventBatch into its schema version and each event's bytes; throws when malformed. */
export function readBatch(data: Uint8Array): WireBatch {
  let schemaVersion = 0;
  const events: Uint8Array[] = [];
  eachField(data, (number, _start, valueStart, end, wireType) => {
    if (number === BATCH_SCHEMA_VERSION && wireType === VARINT) schemaVersion = varint(data, valueStart)[0];
    else if (number === BATCH_EVENTS && wireType === LENGTH_DELIMITED)
      events.push(data.subarray(valueStart, end));
  });
  return { schemaVersion, events };
}

/** A RequestEvent's bytes without request_body and response_body (the same bytes when it has none). */
export function withoutBodies(event: Uint8Array): Uint8Array {
  const kept: [number, number][] = [];
  let dropped = false;
  eachField(event, (number, start, _valueStart, end) => {
    if (BODY_FIELDS.has(number)) {
      dropped = true;
      return;
    }
    const last = kept[kept.length - 1];
    if (last && last[1] === start) last[1] = end;
    else kept.push([start, end]);
  });
  if (!dropped) return event;
  const out = new Uint8Array(kept.reduce((n, [s, e]) => n + e - s, 0));
  let at = 0;
  for (const [s, e] of kept) {
    out.set(event.subarray(s, e), at);
    at += e - s;
  }
  return out;
}
