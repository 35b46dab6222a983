// Postgres arrays in binary format (what `array_recv` reads), built straight from column values so
// that a batch of rows travels as one binary parameter per column
// (`insert ... select from unnest($1::uuid[], $2::timestamptz[], ...)`): a short statement parsed
// once per batch, no text to format in the logger nor to parse in Postgres, bytea copied as is.
// `pg` sends a Buffer parameter in binary format.

/** Element types, by their Postgres name; the statement must cast its parameter to `<type>[]`. */
export type ElementType =
  | 'text'
  | 'uuid'
  | 'jsonb'
  | 'bool'
  | 'int2'
  | 'int4'
  | 'int8'
  | 'float8'
  | 'bytea'
  | 'timestamptz';

const OIDS: Record<ElementType, number> = {
  bool: 16,
  bytea: 17,
  int8: 20,
  int2: 21,
  int4: 23,
  text: 25,
  float8: 701,
  timestamptz: 1184,
  uuid: 2950,
  jsonb: 3802,
};

/** 2000-01-01T00:00:00Z, Postgres's timestamp epoch, in Unix milliseconds. */
const PG_EPOCH_MS = 946_684_800_000;
const TWO_32 = 4_294_967_296;
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** A growing buffer; one per array. */
class Writer {
  buf: Buffer;
  at = 0;
  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }
  reserve(bytes: number): void {
    if (this.at + bytes <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + bytes));
    this.buf.copy(grown, 0, 0, this.at);
    this.buf = grown;
  }
  int32(value: number): void {
    this.reserve(4);
    this.buf.writeInt32BE(value, this.at);
    this.at += 4;
  }
  /** A signed 64-bit integer from a JS number (exact up to 2^53). */
  int64(value: number): void {
    if (!Number.isInteger(value)) throw new TypeError(`not an integer: ${value}`);
    const high = Math.floor(value / TWO_32);
    this.reserve(8);
    this.buf.writeInt32BE(high, this.at);
    this.buf.writeUInt32BE(value - high * TWO_32, this.at + 4);
    this.at += 8;
  }
  /** Length-prefixed UTF-8 text, with `prefix` bytes before it (jsonb's version). */
  text(value: string, prefix?: number): void {
    const head = prefix === undefined ? 0 : 1;
    this.reserve(4 + head + value.length * 3);
    const start = this.at;
    this.at += 4;
    if (prefix !== undefined) this.buf[this.at++] = prefix;
    this.at += this.buf.write(value, this.at, 'utf8');
    this.buf.writeInt32BE(this.at - start - 4, start);
  }
  bytes(value: Uint8Array): void {
    this.int32(value.byteLength);
    this.reserve(value.byteLength);
    this.buf.set(value, this.at);
    this.at += value.byteLength;
  }
}

function epochMs(value: unknown): number {
  const ms =
    value instanceof Date
      ? value.getTime()
      : typeof value === 'number'
        ? value
        : new Date(String(value)).getTime();
  if (!Number.isFinite(ms)) throw new TypeError(`not a timestamp: ${String(value)}`);
  return ms;
}

/** Element writers (length prefix included), chosen once per array rather than per value. */
const WRITERS: Record<ElementType, (w: Writer, value: unknown) => void> = {
  text: (w, value) => w.text(String(value)),
  jsonb: (w, value) => w.text(String(value), 1),
  uuid(w, value) {
    const text = String(value);
    if (!UUID.test(text)) throw new TypeError(`not a uuid: ${text}`);
    w.int32(16);
    w.reserve(16);
    w.at += w.buf.write(text.replaceAll('-', ''), w.at, 16, 'hex');
  },
  bool(w, value) {
    w.int32(1);
    w.reserve(1);
    w.buf[w.at++] = value ? 1 : 0;
  },
  int2(w, value) {
    w.int32(2);
    w.reserve(2);
    w.buf.writeInt16BE(Number(value), w.at);
    w.at += 2;
  },
  int4(w, value) {
    w.int32(4);
    w.int32(Number(value));
  },
  int8(w, value) {
    w.int32(8);
    w.int64(Number(value));
  },
  float8(w, value) {
    w.int32(8);
    w.reserve(8);
    w.buf.writeDoubleBE(Number(value), w.at);
    w.at += 8;
  },
  bytea: (w, value) => w.bytes(value as Uint8Array),
  timestamptz(w, value) {
    // Microseconds since 2000-01-01 (integer timestamps, every supported Postgres).
    w.int32(8);
    w.int64((epochMs(value) - PG_EPOCH_MS) * 1000);
  },
};

/**
 * A value its column type cannot hold (out of range, not a uuid): carries SQLSTATE 22000 (data
 * exception), so ingest treats it as Postgres refusing the data (the event is set aside, the rest of
 * its batch stored) rather than as an outage to retry.
 */
export class ArrayValueError extends Error {
  readonly code = '22000';
}

/** Writes one array: header, then each row's value (null and undefined are NULL elements). */
function writeArray<R>(w: Writer, type: ElementType, rows: readonly R[], get: (row: R) => unknown): void {
  const start = w.at;
  w.int32(1); // dimensions
  w.int32(0); // has nulls: set below when one is written
  w.int32(OIDS[type]);
  w.int32(rows.length);
  w.int32(1); // lower bound
  const write = WRITERS[type];
  for (const row of rows) {
    const value = get(row);
    if (value === null || value === undefined) {
      w.buf.writeInt32BE(1, start + 4);
      w.int32(-1);
      continue;
    }
    try {
      write(w, value);
    } catch (err) {
      throw new ArrayValueError(`${type} value ${String(value).slice(0, 100)}: ${(err as Error).message}`);
    }
  }
}

/**
 * A column of an unnest-based statement: its name, element type and how to read it from a row (a
 * function per column, so that each reads one property of one shape: a fast monomorphic load,
 * where `row[name]` over 50 names is a slow megamorphic one).
 */
export interface ArrayColumn<R> {
  readonly name: string;
  readonly type: ElementType;
  readonly get: (row: R) => unknown;
}

/**
 * One binary array per column, in column order: the statement's parameters. They are views of one
 * buffer sized from `bytesHint` (a guess of the rows' variable-length bytes), grown when short.
 */
export function columnArrays<R>(
  columns: readonly ArrayColumn<R>[],
  rows: readonly R[],
  bytesHint = 0,
): Buffer[] {
  const w = new Writer(columns.length * (20 + rows.length * 12) + bytesHint);
  const ends: number[] = [];
  for (const column of columns) {
    writeArray(w, column.type, rows, column.get);
    ends.push(w.at);
  }
  return ends.map((end, i) => w.buf.subarray(i === 0 ? 0 : ends[i - 1], end));
}

/** `unnest($1::t1[], ...) as u(c1, ...)`, parameters from $1, and the column list it fills. */
export function unnestParts<R>(columns: readonly ArrayColumn<R>[]): { columns: string; from: string } {
  const names = columns.map((c) => c.name).join(', ');
  const types = columns.map((c, i) => `$${i + 1}::${c.type}[]`).join(', ');
  return { columns: names, from: `unnest(${types}) as u(${names})` };
}
