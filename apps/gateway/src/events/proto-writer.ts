// A protobuf writer for the gateway's own messages: one growable buffer reused across batches,
// submessages written in place (length prefix fixed up afterwards) instead of ts-proto's fork/join
// copies, and 64-bit integers written from plain numbers instead of through BigInt.

/** Thrown for a value this writer does not encode itself; the caller falls back to ts-proto. */
export class Unusual extends Error {}
const UNUSUAL = new Unusual('value outside the hand-written encoder');

const INITIAL_BYTES = 64 * 1024;
/** A buffer grown past this for one large batch is dropped afterwards, not kept. */
const MAX_KEPT_BYTES = 1024 * 1024;
/** Strings up to this many UTF-16 units are tried as ASCII in a JS loop (cheaper than native calls). */
const ASCII_LOOP_MAX = 64;
/** 2^32, for splitting numbers above 32 bits. */
const TWO_32 = 4_294_967_296;

export class ProtoWriter {
  buf: Buffer = Buffer.allocUnsafe(INITIAL_BYTES);
  pos = 0;

  /** Room for `n` more bytes. */
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** A copy of what was written, then an empty writer (its buffer kept unless it grew too big). */
  take(): Uint8Array {
    // Its own memory (not the shared pool: it may wait for a PubAck or a spool write), not zeroed.
    const out = Buffer.allocUnsafeSlow(this.pos);
    this.buf.copy(out, 0, 0, this.pos);
    this.reset();
    return out;
  }

  /** Empties the writer (dropping a buffer that grew too big). */
  reset(): void {
    this.pos = 0;
    if (this.buf.length > MAX_KEPT_BYTES) this.buf = Buffer.allocUnsafe(INITIAL_BYTES);
  }

  /** Drops everything written since `pos` (a message that fell back or failed). */
  rewind(pos: number): void {
    this.pos = pos;
  }

  /** An unsigned varint below 2^32 (tags, lengths, checked uint32 values). */
  varint32(value: number): void {
    this.ensure(5);
    const buf = this.buf;
    let pos = this.pos;
    while (value > 0x7f) {
      buf[pos++] = (value & 0x7f) | 0x80;
      value >>>= 7;
    }
    buf[pos++] = value;
    this.pos = pos;
  }

  /** A non-negative safe integer as a varint (`& 0x7f` is exact: ToInt32 keeps the low bits). */
  varint53(value: number): void {
    if (value < TWO_32) {
      this.varint32(value);
      return;
    }
    this.ensure(10);
    const buf = this.buf;
    let pos = this.pos;
    while (value > 0x7f) {
      buf[pos++] = (value & 0x7f) | 0x80;
      value = Math.floor(value / 128);
    }
    buf[pos++] = value;
    this.pos = pos;
  }

  /** `uint32` field (skipped when 0, as proto3 encoders do). */
  uint32(tag: number, value: number): void {
    if (value === 0) return;
    // An integer in 1..2^32-1 survives `>>> 0` unchanged; anything else (fraction, NaN, string) not.
    if (value >>> 0 !== value) throw UNUSUAL;
    this.varint32(tag);
    this.varint32(value);
  }

  /** `int32` / enum field; negative values (10-byte varints) are left to ts-proto. */
  int32(tag: number, value: number): void {
    if (value === 0) return;
    if ((value | 0) !== value || value < 0) throw UNUSUAL;
    this.varint32(tag);
    this.varint32(value);
  }

  /** `double` field, 8 bytes little-endian (skipped when 0, as proto3 encoders do). */
  double(tag: number, value: number): void {
    if (value === 0) return;
    if (typeof value !== 'number') throw UNUSUAL;
    this.varint32(tag);
    this.ensure(8);
    this.pos = this.buf.writeDoubleLE(value, this.pos);
  }

  /** `int64` / `uint64` field holding a non-negative safe integer (anything else: ts-proto). */
  uint53(tag: number, value: number): void {
    if (value === 0) return;
    if (
      typeof value !== 'number' ||
      !(value > 0 && value <= Number.MAX_SAFE_INTEGER) ||
      Math.floor(value) !== value
    )
      throw UNUSUAL;
    this.varint32(tag);
    this.varint53(value);
  }

  bool(tag: number, value: boolean): void {
    if (value === false) return;
    if (value !== true) throw UNUSUAL;
    this.varint32(tag);
    this.ensure(1);
    this.buf[this.pos++] = 1;
  }

  string(tag: number, value: string): void {
    if (value === '') return;
    if (typeof value !== 'string') throw UNUSUAL;
    this.varint32(tag);
    const len = value.length;
    if (len <= ASCII_LOOP_MAX) {
      this.ensure(len + 1);
      const buf = this.buf;
      const start = this.pos;
      let pos = start + 1;
      let i = 0;
      for (; i < len; i++) {
        const code = value.charCodeAt(i);
        if (code > 0x7f) break;
        buf[pos++] = code;
      }
      if (i === len) {
        buf[start] = len;
        this.pos = pos;
        return;
      }
    }
    // UTF-8 like TextEncoder (lone surrogates become U+FFFD), length known first. As many bytes as
    // UTF-16 units means ASCII only: latin1 copies it without encoding.
    const bytes = Buffer.byteLength(value, 'utf8');
    this.varint32(bytes);
    this.ensure(bytes);
    this.pos += this.buf.write(value, this.pos, bytes, bytes === len ? 'latin1' : 'utf8');
  }

  bytes(tag: number, value: Uint8Array): void {
    if (!(value instanceof Uint8Array)) throw UNUSUAL;
    if (value.length === 0) return;
    this.varint32(tag);
    this.varint32(value.length);
    this.ensure(value.length);
    this.buf.set(value, this.pos);
    this.pos += value.length;
  }

  /** Opens a length-delimited submessage; returns where its length goes (pass it to close()). */
  open(tag: number): number {
    this.varint32(tag);
    this.ensure(1);
    return this.pos++;
  }

  /** Writes the length of the submessage opened at `at`, moving its bytes when it needs more than 1. */
  close(at: number): void {
    const len = this.pos - at - 1;
    if (len < 0x80) {
      this.buf[at] = len;
      return;
    }
    const extra = len < 0x4000 ? 1 : len < 0x200000 ? 2 : len < 0x10000000 ? 3 : 4;
    this.ensure(extra);
    this.buf.copyWithin(at + 1 + extra, at + 1, this.pos);
    const end = this.pos + extra;
    this.pos = at;
    this.varint32(len);
    this.pos = end;
  }

  /** Already-encoded message bytes as a length-delimited field. */
  message(tag: number, encoded: Uint8Array): void {
    this.varint32(tag);
    this.varint32(encoded.length);
    this.ensure(encoded.length);
    this.buf.set(encoded, this.pos);
    this.pos += encoded.length;
  }
}
