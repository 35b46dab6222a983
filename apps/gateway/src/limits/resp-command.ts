// The counter script's calls written as Redis protocol (RESP) bytes by the gateway, handed to
// ioredis as a ready command: ioredis copies, stringifies and measures every argument of a command
// (a Buffer.byteLength and four string joins each, then a UTF-8 encode of the whole), and one
// batched script call carries dozens of arguments, most of them numbers. ioredis still owns the
// connection, the reply parsing and the command queue. Why hand-written: docs/decisions.md.
import { Command } from 'ioredis';

/** Where commands are assembled; each command is copied out of it (the socket keeps its bytes). */
let scratch = Buffer.allocUnsafe(16 * 1024);

/** Up to this, integers are small (31-bit) ones: their digits come from integer arithmetic. */
const SMALL = 0x3fffffff;

/** Decimal digits of a small non-negative integer. */
function width(n: number): number {
  let w = 1;
  while (n >= 10) {
    n = (n / 10) | 0;
    w++;
  }
  return w;
}

/** A small non-negative integer's digits written at `at`; returns the position after them. */
function writeDigits(buf: Buffer, at: number, n: number): number {
  const end = at + width(n);
  let p = end;
  do {
    buf[--p] = 48 + (n % 10);
    n = (n / 10) | 0;
  } while (n > 0);
  return end;
}

/** `$<bytes>\r\n` at `at`; returns the position after it. */
function writeHead(buf: Buffer, at: number, bytes: number): number {
  buf[at] = 36; // $
  const p = writeDigits(buf, at + 1, bytes);
  buf[p] = 13;
  buf[p + 1] = 10;
  return p + 2;
}

/** Strings up to this many units are copied in a JS loop when ASCII; longer ones natively. */
const SHORT = 24;

/** Room for `bytes` more at `at`: the scratch buffer, grown (and what it holds kept) if needed. */
function room(at: number, bytes: number): Buffer {
  if (at + bytes <= scratch.length) return scratch;
  const bigger = Buffer.allocUnsafe(Math.max(scratch.length * 2, at + bytes));
  scratch.copy(bigger, 0, 0, at);
  scratch = bigger;
  return bigger;
}

/** One bulk string (a number as String() writes it) at `at`; returns the position after it. */
function writeBulk(at: number, value: string | number): number {
  if (typeof value === 'number') {
    // Small integers digit by digit; anything else (large, negative, fractional) as String() writes it.
    if (value >= 0 && value <= SMALL && Number.isInteger(value)) {
      const buf = room(at, 24);
      let p = writeHead(buf, at, width(value));
      p = writeDigits(buf, p, value);
      buf[p] = 13;
      buf[p + 1] = 10;
      return p + 2;
    }
    value = String(value);
  }
  const len = value.length;
  if (len <= SHORT) {
    let ascii = true;
    for (let i = 0; i < len; i++) if (value.charCodeAt(i) > 0x7f) ascii = false;
    if (ascii) {
      const buf = room(at, len + 24);
      let p = writeHead(buf, at, len);
      for (let i = 0; i < len; i++) buf[p++] = value.charCodeAt(i);
      buf[p] = 13;
      buf[p + 1] = 10;
      return p + 2;
    }
  }
  const bytes = Buffer.byteLength(value, 'utf8');
  const buf = room(at, bytes + 24);
  let p = writeHead(buf, at, bytes);
  p += buf.write(value, p, bytes, 'utf8');
  buf[p] = 13;
  buf[p + 1] = 10;
  return p + 2;
}

/**
 * `name head numkeys keys... args...` (EVAL/EVALSHA) as RESP bytes, `keyPrefix` before every key
 * as ioredis' keyPrefix option would put it. Numbers are written as String() writes them.
 */
export function encodeScriptCall(
  name: 'evalsha' | 'eval',
  head: string,
  keys: readonly string[],
  args: readonly (string | number)[],
  keyPrefix = '',
): Buffer {
  const buf = room(0, 32);
  buf[0] = 42; // *
  let p = writeDigits(buf, 1, 3 + keys.length + args.length);
  buf[p++] = 13;
  buf[p++] = 10;
  p = writeBulk(p, name);
  p = writeBulk(p, head);
  p = writeBulk(p, keys.length);
  for (const key of keys) p = writeBulk(p, keyPrefix === '' ? key : keyPrefix + key);
  for (const arg of args) p = writeBulk(p, arg);
  return Buffer.from(scratch.subarray(0, p));
}

/** A command whose bytes are already written: ioredis sends them as they are. */
export class EncodedCommand extends Command {
  constructor(
    name: string,
    private readonly bytes: Buffer,
  ) {
    super(name, []);
  }

  override toWritable(): Buffer {
    return this.bytes;
  }
}
