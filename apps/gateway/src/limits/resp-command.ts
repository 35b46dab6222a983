// The counter script's calls written as Redis protocol (RESP) bytes by the gateway, handed to
// ioredis as a ready command: ioredis copies, stringifies and measures every argument of a command
// (a Buffer.byteLength and four string joins each, then a UTF-8 encode of the whole), and one
// batched script call carries dozens of arguments, most of them numbers. ioredis still owns the
// connection, the reply parsing and the command queue. Why hand-written: docs/decisions.md.
import { Command } from 'ioredis';

const CR = 13;
const LF = 10;

/** Where commands are assembled; each command is copied out of it (the socket keeps its bytes). */
let scratch = Buffer.allocUnsafe(16 * 1024);
let pos = 0;

function room(bytes: number): void {
  if (pos + bytes <= scratch.length) return;
  const bigger = Buffer.allocUnsafe(Math.max(scratch.length * 2, pos + bytes));
  scratch.copy(bigger, 0, 0, pos);
  scratch = bigger;
}

/** A non-negative integer's decimal digits at `pos`. */
function digits(n: number): void {
  if (n < 10) {
    scratch[pos++] = 48 + n;
    return;
  }
  const start = pos;
  while (n > 0) {
    scratch[pos++] = 48 + (n % 10);
    n = Math.floor(n / 10);
  }
  scratch.subarray(start, pos).reverse();
}

/** `$<length>\r\n<ascii>\r\n`, or false (nothing written) when `text` is not ASCII. */
function asciiBulk(text: string): boolean {
  const len = text.length;
  for (let i = 0; i < len; i++) if (text.charCodeAt(i) > 0x7f) return false;
  room(len + 16);
  scratch[pos++] = 36; // $
  digits(len);
  scratch[pos++] = CR;
  scratch[pos++] = LF;
  for (let i = 0; i < len; i++) scratch[pos++] = text.charCodeAt(i);
  scratch[pos++] = CR;
  scratch[pos++] = LF;
  return true;
}

function bulk(value: string | number): void {
  if (typeof value === 'number') {
    // Safe integers as digits, as String() would write them; anything else as String() does.
    if (Number.isSafeInteger(value)) {
      room(40);
      const negative = value < 0;
      const abs = negative ? -value : value;
      scratch[pos++] = 36; // $
      let width = 1;
      for (let rest = abs; rest >= 10; rest = Math.floor(rest / 10)) width++;
      digits(width + (negative ? 1 : 0));
      scratch[pos++] = CR;
      scratch[pos++] = LF;
      if (negative) scratch[pos++] = 45; // -
      digits(abs);
      scratch[pos++] = CR;
      scratch[pos++] = LF;
      return;
    }
    value = String(value);
  }
  if (asciiBulk(value)) return;
  const len = Buffer.byteLength(value, 'utf8');
  room(len + 16);
  scratch[pos++] = 36;
  digits(len);
  scratch[pos++] = CR;
  scratch[pos++] = LF;
  pos += scratch.write(value, pos, len, 'utf8');
  scratch[pos++] = CR;
  scratch[pos++] = LF;
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
  pos = 0;
  room(32);
  scratch[pos++] = 42; // *
  digits(3 + keys.length + args.length);
  scratch[pos++] = CR;
  scratch[pos++] = LF;
  bulk(name);
  bulk(head);
  bulk(keys.length);
  for (const key of keys) bulk(keyPrefix === '' ? key : keyPrefix + key);
  for (const arg of args) bulk(arg);
  return Buffer.from(scratch.subarray(0, pos));
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
