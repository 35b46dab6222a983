// The JSON payloads of an AWS event stream (application/vnd.amazon.eventstream: Bedrock's
// ConverseStream and InvokeModelWithResponseStream). Each message is a prelude (total length,
// headers length, CRC), headers, a payload and a CRC. Read for usage from a whole body or from a
// tail cut anywhere: reading starts at the first offset whose prelude and message CRCs check.
import { crc32 } from 'node:zlib';
import { obj } from './json.js';
import type { Json } from './types.js';

const PRELUDE = 12;
const MIN_MESSAGE = PRELUDE + 4;

/** The message at `at` when its lengths are sane and both CRCs check: its payload range. */
function messageAt(buf: Buffer, at: number): { total: number; payload: Buffer } | undefined {
  if (at + MIN_MESSAGE > buf.length) return undefined;
  const total = buf.readUInt32BE(at);
  const headers = buf.readUInt32BE(at + 4);
  if (total < MIN_MESSAGE || at + total > buf.length || headers > total - MIN_MESSAGE) return undefined;
  if (buf.readUInt32BE(at + 8) !== crc32(buf.subarray(at, at + 8))) return undefined;
  if (buf.readUInt32BE(at + total - 4) !== crc32(buf.subarray(at, at + total - 4))) return undefined;
  return { total, payload: buf.subarray(at + PRELUDE + headers, at + total - 4) };
}

/**
 * Every JSON object payload, in order. InvokeModelWithResponseStream wraps the model's own event
 * as base64 `bytes`: that inner event is returned instead.
 */
export function eventStreamPayloads(buf: Buffer): Json[] {
  const out: Json[] = [];
  let at = 0;
  while (at + MIN_MESSAGE <= buf.length) {
    const message = messageAt(buf, at);
    if (!message) {
      // A tail starts inside a message: slide until a prelude checks.
      at++;
      continue;
    }
    at += message.total;
    let event: Json | undefined;
    try {
      event = obj(JSON.parse(message.payload.toString('utf8')));
      if (event && typeof event.bytes === 'string') {
        event = obj(JSON.parse(Buffer.from(event.bytes, 'base64').toString('utf8')));
      }
    } catch {
      // Not JSON (an exception message in another encoding): nothing to read.
      event = undefined;
    }
    if (event) out.push(event);
  }
  return out;
}
