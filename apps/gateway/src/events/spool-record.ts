// Framing of one spooled message: body length, CRC-32 of the body, then the body (message id + payload).
//
// Layout (big-endian):  u32 bodyLength | u32 crc32(body) | body = u16 idLength | id (UTF-8) | payload
// The checksum lets a reader tell a torn write (crash mid-append) from a real record, so it can
// stop at the damage instead of handing garbage to JetStream.
import { crc32 } from 'node:zlib';

/** Bytes in front of the body: its length and its checksum. */
export const RECORD_PREFIX_BYTES = 8;
/** A body longer than this is damage, not a record (NATS payloads are far smaller). */
export const MAX_RECORD_BODY_BYTES = 64 * 1024 * 1024;
const MAX_ID_BYTES = 0xffff;

export interface SpoolRecord {
  /** Byte offset of the record in its segment: a stable key for "already acked". */
  readonly offset: number;
  readonly msgId: string;
  readonly payload: Uint8Array;
}

export type DamageReason = 'truncated' | 'bad-length' | 'bad-checksum';

export interface DecodedRecords {
  readonly records: SpoolRecord[];
  /** Bytes of intact records from the start of the buffer. */
  readonly validBytes: number;
  /** Set when the buffer does not end on a record boundary; everything from `offset` is skipped. */
  readonly damage?: { readonly offset: number; readonly reason: DamageReason; readonly skippedBytes: number };
}

/** Bytes of a record in front of its payload: prefix, id length and id. Throws for ids over 65535 bytes. */
export function recordHeadBytes(msgId: string): number {
  const idBytes = Buffer.byteLength(msgId, 'utf8');
  if (idBytes > MAX_ID_BYTES) throw new RangeError(`message id of ${idBytes} bytes is too long to spool`);
  return RECORD_PREFIX_BYTES + 2 + idBytes;
}

/** Writes the id part of a record at `at` (`recordHeadBytes(msgId)` bytes; the prefix is left for sealRecord). */
export function writeRecordHead(buf: Buffer, at: number, msgId: string): void {
  const idBytes = Buffer.byteLength(msgId, 'utf8');
  buf.writeUInt16BE(idBytes, at + RECORD_PREFIX_BYTES);
  buf.write(msgId, at + RECORD_PREFIX_BYTES + 2, idBytes, 'utf8');
}

/**
 * Fills in the prefix (body length, CRC-32 of the body) of the record `frame`, whose head and
 * payload are written; throws RangeError when the record is too large.
 */
export function sealRecord(frame: Buffer): Buffer {
  const bodyBytes = frame.length - RECORD_PREFIX_BYTES;
  if (bodyBytes > MAX_RECORD_BODY_BYTES) throw new RangeError(`record of ${bodyBytes} bytes is too large`);
  frame.writeUInt32BE(bodyBytes, 0);
  frame.writeUInt32BE(crc32(frame.subarray(RECORD_PREFIX_BYTES)), 4);
  return frame;
}

/** One framed record; throws RangeError for ids longer than 65535 bytes. */
export function encodeRecord(msgId: string, payload: Uint8Array): Buffer {
  const head = recordHeadBytes(msgId);
  if (head - RECORD_PREFIX_BYTES + payload.byteLength > MAX_RECORD_BODY_BYTES) {
    throw new RangeError(`record of ${head - RECORD_PREFIX_BYTES + payload.byteLength} bytes is too large`);
  }
  const frame = Buffer.allocUnsafe(head + payload.byteLength);
  writeRecordHead(frame, 0, msgId);
  frame.set(payload, head);
  return sealRecord(frame);
}

/** Every intact record from the start of `data`, stopping at the first damaged or incomplete one. */
export function decodeRecords(data: Uint8Array): DecodedRecords {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const records: SpoolRecord[] = [];
  let offset = 0;
  const stop = (reason: DamageReason): DecodedRecords => ({
    records,
    validBytes: offset,
    damage: { offset, reason, skippedBytes: buf.length - offset },
  });
  while (offset < buf.length) {
    if (buf.length - offset < RECORD_PREFIX_BYTES) return stop('truncated');
    const bodyBytes = buf.readUInt32BE(offset);
    if (bodyBytes < 2 || bodyBytes > MAX_RECORD_BODY_BYTES) return stop('bad-length');
    const bodyStart = offset + RECORD_PREFIX_BYTES;
    const end = bodyStart + bodyBytes;
    if (end > buf.length) return stop('truncated');
    const body = buf.subarray(bodyStart, end);
    if (crc32(body) !== buf.readUInt32BE(offset + 4)) return stop('bad-checksum');
    const idBytes = body.readUInt16BE(0);
    if (2 + idBytes > bodyBytes) return stop('bad-length');
    records.push({
      offset,
      msgId: body.toString('utf8', 2, 2 + idBytes),
      payload: body.subarray(2 + idBytes),
    });
    offset = end;
  }
  return { records, validBytes: offset };
}
