import { describe, expect, it } from 'vitest';
import { decodeRecords, encodeRecord, RECORD_PREFIX_BYTES } from './spool-record.js';

const payload = (text: string) => new Uint8Array(Buffer.from(text));

describe('spool record framing', () => {
  it('round-trips records, including an empty payload and a non-ASCII id', () => {
    const frames = [
      encodeRecord('0b8f7c1e-1', payload('first event')),
      encodeRecord('id-ü-2', new Uint8Array()),
      encodeRecord('3', payload('x'.repeat(70_000))),
    ];
    const decoded = decodeRecords(Buffer.concat(frames));
    expect(decoded.damage).toBeUndefined();
    expect(decoded.validBytes).toBe(frames.reduce((sum, frame) => sum + frame.length, 0));
    expect(decoded.records.map((record) => record.msgId)).toEqual(['0b8f7c1e-1', 'id-ü-2', '3']);
    expect(Buffer.from(decoded.records[0]!.payload).toString()).toBe('first event');
    expect(decoded.records[1]!.payload.byteLength).toBe(0);
    expect(decoded.records[2]!.payload.byteLength).toBe(70_000);
    expect(decoded.records.map((record) => record.offset)).toEqual([
      0,
      frames[0]!.length,
      frames[0]!.length + frames[1]!.length,
    ]);
  });

  it('decodes an empty buffer as no records', () => {
    expect(decodeRecords(new Uint8Array())).toEqual({ records: [], validBytes: 0 });
  });

  it('reports a record cut anywhere (torn write) as a truncated tail after the intact ones', () => {
    const whole = encodeRecord('a', payload('complete'));
    const torn = encodeRecord('b', payload('cut short'));
    for (const keep of [1, RECORD_PREFIX_BYTES - 1, RECORD_PREFIX_BYTES, torn.length - 1]) {
      const decoded = decodeRecords(Buffer.concat([whole, torn.subarray(0, keep)]));
      expect(decoded.records.map((record) => record.msgId)).toEqual(['a']);
      expect(decoded.validBytes).toBe(whole.length);
      expect(decoded.damage).toEqual({ offset: whole.length, reason: 'truncated', skippedBytes: keep });
    }
  });

  it('detects a flipped payload bit by its checksum', () => {
    const frame = encodeRecord('a', payload('payload'));
    frame[frame.length - 1]! ^= 0x01;
    const decoded = decodeRecords(frame);
    expect(decoded.records).toEqual([]);
    expect(decoded.damage?.reason).toBe('bad-checksum');
  });

  it('treats an impossible length as damage, not as a huge record', () => {
    const garbage = Buffer.alloc(16, 0xff);
    expect(decodeRecords(garbage).damage).toEqual({ offset: 0, reason: 'bad-length', skippedBytes: 16 });
    const zeros = Buffer.alloc(16);
    expect(decodeRecords(zeros).damage?.reason).toBe('bad-length');
  });

  it('rejects a message id that does not fit the u16 length', () => {
    expect(() => encodeRecord('x'.repeat(70_000), new Uint8Array())).toThrow(RangeError);
  });
});
