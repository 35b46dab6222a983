import { Command } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { EncodedCommand, encodeScriptCall } from './resp-command.js';

/** What ioredis itself writes for the same command (its Command, keyPrefix option included). */
function ioredisBytes(
  name: string,
  head: string,
  keys: string[],
  args: (string | number)[],
  keyPrefix?: string,
): Buffer {
  const command = new Command(name, [head, keys.length, ...keys, ...args], keyPrefix ? { keyPrefix } : {});
  const out = command.toWritable({} as never);
  return typeof out === 'string' ? Buffer.from(out, 'utf8') : out;
}

describe('encodeScriptCall', () => {
  const keys = ['lim:{org-1}:r:p:0b1e:abc', 'lim:{org-1}:u:p:6f1c:abc:0', 'lim:{org-1}:u:p:6f1c:abc:0:res'];
  const args: (string | number)[] = [
    0,
    1,
    9,
    10,
    99,
    100,
    648,
    -1,
    -10,
    1_000_000_000_000,
    Number.MAX_SAFE_INTEGER,
    -Number.MAX_SAFE_INTEGER,
    0.5,
    1e21,
    '',
    'KF-2us5OgOu7.2',
    'caf\u00e9',
    '\u{1f600}',
    'x'.repeat(300),
  ];

  it('writes the bytes ioredis writes for the same call', () => {
    expect(encodeScriptCall('evalsha', 'a'.repeat(40), keys, args)).toEqual(
      ioredisBytes('evalsha', 'a'.repeat(40), keys, args),
    );
    expect(encodeScriptCall('eval', 'return 1', [], [])).toEqual(ioredisBytes('eval', 'return 1', [], []));
  });

  it("puts the client's key prefix before every key, as ioredis' keyPrefix option does", () => {
    expect(encodeScriptCall('evalsha', 'sha', keys, args, 'test:42:')).toEqual(
      ioredisBytes('evalsha', 'sha', keys, args, 'test:42:'),
    );
  });

  it('grows past its first buffer and keeps each command its own bytes', () => {
    const many = Array.from({ length: 5_000 }, (_, i) => `reservation-${i}`);
    const big = encodeScriptCall('evalsha', 'sha', keys, many);
    const small = encodeScriptCall('evalsha', 'sha', [], [1]);
    expect(big).toEqual(ioredisBytes('evalsha', 'sha', keys, many));
    expect(small).toEqual(ioredisBytes('evalsha', 'sha', [], [1]));
  });

  it('is sent by ioredis as it is', () => {
    const bytes = encodeScriptCall('evalsha', 'sha', [], [1]);
    expect(new EncodedCommand('evalsha', bytes).toWritable()).toBe(bytes);
  });
});
