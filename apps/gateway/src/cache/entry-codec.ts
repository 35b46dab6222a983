// One stored answer as bytes: a version byte, the length of a JSON head, the head, then the raw body.
// Binary-safe (the body is never re-encoded) and cheap to decode.
import type { CachedResponse } from './types.js';

const FORMAT = 1;
const PREFIX_BYTES = 5;

interface Head {
  status: number;
  headers: Record<string, string>;
  streamed: boolean;
  storedAt: number;
}

export function encodeEntry(value: CachedResponse): Buffer {
  const head: Head = {
    status: value.status,
    headers: { ...value.headers },
    streamed: value.streamed,
    storedAt: value.storedAt,
  };
  const json = Buffer.from(JSON.stringify(head), 'utf8');
  const prefix = Buffer.alloc(PREFIX_BYTES);
  prefix.writeUInt8(FORMAT, 0);
  prefix.writeUInt32BE(json.length, 1);
  return Buffer.concat([prefix, json, value.body]);
}

/** Undefined for bytes this version did not write (another format, or damage). */
export function decodeEntry(bytes: Buffer): CachedResponse | undefined {
  if (bytes.length < PREFIX_BYTES || bytes.readUInt8(0) !== FORMAT) return undefined;
  const headEnd = PREFIX_BYTES + bytes.readUInt32BE(1);
  if (headEnd > bytes.length) return undefined;
  let head: Head;
  try {
    head = JSON.parse(bytes.subarray(PREFIX_BYTES, headEnd).toString('utf8')) as Head;
  } catch {
    return undefined;
  }
  if (typeof head.status !== 'number' || typeof head.headers !== 'object' || head.headers === null) {
    return undefined;
  }
  return {
    status: head.status,
    headers: head.headers,
    body: bytes.subarray(headEnd),
    streamed: head.streamed === true,
    storedAt: Number(head.storedAt) || 0,
  };
}

/** What an entry costs in memory or on the wire: body, headers and a fixed overhead. */
export function entrySize(value: CachedResponse): number {
  let size = value.body.length + 64;
  for (const name in value.headers) size += name.length + (value.headers[name]?.length ?? 0);
  return size;
}
