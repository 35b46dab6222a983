// Framing of a RequestEventBatch from already-encoded events (no re-encoding), and its message id.
import { SCHEMA_VERSION } from '@aigw/proto';

/** Below NATS's default 1 MiB max payload, with room for headers. */
export const MAX_BATCH_BYTES = 768 * 1024;
export const MAX_BATCH_EVENTS = 500;

const SCHEMA_VERSION_TAG = 0x08; // field 1, varint
const EVENTS_TAG = 0x12; // field 2, length-delimited

function varintLength(value: number): number {
  let n = 1;
  while (value >= 0x80) {
    value = Math.floor(value / 128);
    n++;
  }
  return n;
}

function writeVarint(out: Uint8Array, at: number, value: number): number {
  while (value >= 0x80) {
    out[at++] = (value & 0x7f) | 0x80;
    value = Math.floor(value / 128);
  }
  out[at++] = value;
  return at;
}

/** Bytes an event adds to a batch. */
export function framedSize(event: Uint8Array): number {
  return 1 + varintLength(event.length) + event.length;
}

/** `RequestEventBatch { schema_version, events }`, byte-identical to encoding it with ts-proto. */
export function frameBatch(events: readonly Uint8Array[]): Uint8Array {
  let size = 1 + varintLength(SCHEMA_VERSION);
  for (const event of events) size += framedSize(event);
  const out = new Uint8Array(size);
  let at = 0;
  out[at++] = SCHEMA_VERSION_TAG;
  at = writeVarint(out, at, SCHEMA_VERSION);
  for (const event of events) {
    out[at++] = EVENTS_TAG;
    at = writeVarint(out, at, event.length);
    out.set(event, at);
    at += event.length;
  }
  return out;
}

/** Nats-Msg-Id of a batch: stable for the same batch, so a replayed batch is de-duplicated. */
export function batchMsgId(firstEventId: string, count: number): string {
  return `${firstEventId}+${count}`;
}

/** Events in a batch, from its message id (1 for ids written before batching). */
export function batchEventCount(msgId: string): number {
  const plus = msgId.lastIndexOf('+');
  const count = plus < 0 ? 1 : Number(msgId.slice(plus + 1));
  return Number.isInteger(count) && count > 0 ? count : 1;
}

/**
 * Frames encoded events into batches in order, each as many events as fit: at most
 * MAX_BATCH_EVENTS events and MAX_BATCH_BYTES framed bytes (a larger event goes alone).
 */
export function frameBatches(
  events: readonly { readonly id: string; readonly bytes: Uint8Array }[],
): { id: string; bytes: Uint8Array; count: number }[] {
  const batches: { id: string; bytes: Uint8Array; count: number }[] = [];
  for (let start = 0; start < events.length; ) {
    let end = start;
    let bytes = 0;
    while (end < events.length && end - start < MAX_BATCH_EVENTS) {
      const size = framedSize(events[end]!.bytes);
      if (end > start && bytes + size > MAX_BATCH_BYTES) break;
      bytes += size;
      end++;
    }
    const batch = events.slice(start, end);
    start = end;
    batches.push({
      id: batchMsgId(batch[0]!.id, batch.length),
      bytes: frameBatch(batch.map((e) => e.bytes)),
      count: batch.length,
    });
  }
  return batches;
}
