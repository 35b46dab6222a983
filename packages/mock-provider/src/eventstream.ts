// AWS event-stream binary framing (application/vnd.amazon.eventstream), as Bedrock streams use it.
import { crc32 } from 'node:zlib';

export interface EventStreamMessage {
  headers: Record<string, string>;
  payload: Buffer;
}

const STRING_TYPE = 7;

/** Encode one message: prelude (lengths + CRC), string headers, payload, message CRC. */
export function encodeEventMessage(headers: Record<string, string>, payload: Buffer): Buffer {
  const headerBufs = Object.entries(headers).map(([name, value]) => {
    const n = Buffer.from(name);
    const v = Buffer.from(value);
    const out = Buffer.alloc(1 + n.length + 1 + 2 + v.length);
    out.writeUInt8(n.length, 0);
    n.copy(out, 1);
    out.writeUInt8(STRING_TYPE, 1 + n.length);
    out.writeUInt16BE(v.length, 2 + n.length);
    v.copy(out, 4 + n.length);
    return out;
  });
  const headerBytes = Buffer.concat(headerBufs);
  const total = 12 + headerBytes.length + payload.length + 4;
  const prelude = Buffer.alloc(12);
  prelude.writeUInt32BE(total, 0);
  prelude.writeUInt32BE(headerBytes.length, 4);
  prelude.writeUInt32BE(crc32(prelude.subarray(0, 8)), 8);
  const body = Buffer.concat([prelude, headerBytes, payload]);
  const trailer = Buffer.alloc(4);
  trailer.writeUInt32BE(crc32(body), 0);
  return Buffer.concat([body, trailer]);
}

/** A Bedrock stream event: `:event-type` names it, the payload is its JSON. */
export function bedrockEvent(eventType: string, data: unknown): Buffer {
  return encodeEventMessage(
    { ':event-type': eventType, ':content-type': 'application/json', ':message-type': 'event' },
    Buffer.from(JSON.stringify(data)),
  );
}

/** Decode a buffer holding whole messages, checking both CRCs (used by tests and debugging). */
export function decodeEventMessages(data: Buffer): EventStreamMessage[] {
  const messages: EventStreamMessage[] = [];
  let pos = 0;
  while (pos < data.length) {
    const total = data.readUInt32BE(pos);
    const headersLength = data.readUInt32BE(pos + 4);
    if (data.readUInt32BE(pos + 8) !== crc32(data.subarray(pos, pos + 8)))
      throw new Error('event stream prelude CRC mismatch');
    if (data.readUInt32BE(pos + total - 4) !== crc32(data.subarray(pos, pos + total - 4))) {
      throw new Error('event stream message CRC mismatch');
    }
    const headers: Record<string, string> = {};
    let h = pos + 12;
    const headersEnd = h + headersLength;
    while (h < headersEnd) {
      const nameLength = data.readUInt8(h);
      const name = data.subarray(h + 1, h + 1 + nameLength).toString();
      const type = data.readUInt8(h + 1 + nameLength);
      if (type !== STRING_TYPE) throw new Error(`unsupported event stream header type ${type}`);
      const valueLength = data.readUInt16BE(h + 2 + nameLength);
      headers[name] = data.subarray(h + 4 + nameLength, h + 4 + nameLength + valueLength).toString();
      h += 4 + nameLength + valueLength;
    }
    messages.push({ headers, payload: Buffer.from(data.subarray(headersEnd, pos + total - 4)) });
    pos += total;
  }
  return messages;
}
