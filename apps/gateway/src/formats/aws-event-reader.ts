// Incremental reader of an AWS event stream (application/vnd.amazon.eventstream) as it arrives:
// each message's `:event-type` (or `:exception-type`) header and JSON payload, for translating
// Bedrock's ConverseStream event by event. Messages whose CRCs do not check end the reading.
import { crc32 } from 'node:zlib';
import { obj } from './json.js';
import type { Json } from './types.js';

export interface AwsEvent {
  readonly type: string;
  readonly data: Json;
}

const PRELUDE = 12;
const STRING = 7;

/** Header value sizes by type (AWS event stream encoding); strings and bytes carry a 2-byte length. */
const FIXED: Record<number, number> = { 0: 0, 1: 0, 2: 1, 3: 2, 4: 4, 5: 8, 8: 8, 9: 16 };

function headers(buf: Buffer, start: number, end: number): Record<string, string> {
  const out: Record<string, string> = {};
  let at = start;
  while (at < end) {
    const nameLength = buf.readUInt8(at);
    const name = buf.toString('utf8', at + 1, at + 1 + nameLength);
    at += 1 + nameLength;
    const type = buf.readUInt8(at);
    at += 1;
    if (type === STRING || type === 6) {
      const length = buf.readUInt16BE(at);
      if (type === STRING) out[name] = buf.toString('utf8', at + 2, at + 2 + length);
      at += 2 + length;
    } else {
      const size = FIXED[type];
      if (size === undefined) return out;
      at += size;
    }
  }
  return out;
}

export class AwsEventReader {
  private buffer: Buffer = Buffer.alloc(0);
  /** A CRC failed: the rest of the stream cannot be framed. */
  broken = false;

  push(chunk: Buffer): AwsEvent[] {
    if (this.broken) return [];
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const out: AwsEvent[] = [];
    let at = 0;
    while (this.buffer.length - at >= PRELUDE + 4) {
      const total = this.buffer.readUInt32BE(at);
      const headerLength = this.buffer.readUInt32BE(at + 4);
      if (this.buffer.readUInt32BE(at + 8) !== crc32(this.buffer.subarray(at, at + 8))) {
        this.broken = true;
        break;
      }
      if (this.buffer.length - at < total) break;
      if (this.buffer.readUInt32BE(at + total - 4) !== crc32(this.buffer.subarray(at, at + total - 4))) {
        this.broken = true;
        break;
      }
      const head = headers(this.buffer, at + PRELUDE, at + PRELUDE + headerLength);
      const payload = this.buffer.subarray(at + PRELUDE + headerLength, at + total - 4);
      at += total;
      let data: Json | undefined;
      try {
        data = obj(JSON.parse(payload.toString('utf8')));
      } catch {
        data = { message: payload.toString('utf8') };
      }
      const type = head[':event-type'] ?? head[':exception-type'] ?? '';
      out.push({ type, data: data ?? {} });
    }
    this.buffer = this.buffer.subarray(at);
    return out;
  }
}
