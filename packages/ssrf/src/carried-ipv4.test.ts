import { describe, expect, it } from 'vitest';
import { parseIp } from './address-ranges.js';
import { carriedIpv4, cidrContains, parseCidr } from './carried-ipv4.js';

const ip = (text: string) => {
  const parsed = parseIp(text);
  if (parsed === undefined) throw new Error(`not an IP: ${text}`);
  return parsed;
};

describe('carriedIpv4', () => {
  it.each([
    ['169.254.169.254', 0xa9fea9fen],
    ['::ffff:169.254.169.254', 0xa9fea9fen],
    ['::ffff:a9fe:a9fe', 0xa9fea9fen],
    ['0:0:0:0:0:ffff:a9fe:a9fe', 0xa9fea9fen],
    ['::ffff:0:a9fe:a9fe', 0xa9fea9fen],
    ['::169.254.169.254', 0xa9fea9fen],
    ['::a9fe:a9fe', 0xa9fea9fen],
    ['64:ff9b::a9fe:a9fe', 0xa9fea9fen],
    ['64:ff9b::169.254.169.254', 0xa9fea9fen],
    ['64:ff9b:1::a9fe:a9fe', 0xa9fea9fen],
    ['2002:a9fe:a9fe::1', 0xa9fea9fen],
    ['::ffff:0.0.0.0', 0n],
    ['::2', 2n],
  ])('%s carries %s', (text, v4) => {
    expect(carriedIpv4(ip(text))).toEqual({ family: 4, value: v4 });
  });

  it.each(['::', '::1', 'fe80::a9fe:a9fe', 'fd00:ec2::254', '2606:4700::a9fe:a9fe', '64:ff9c::a9fe:a9fe'])(
    '%s carries none',
    (text) => {
      expect(carriedIpv4(ip(text))).toBeUndefined();
    },
  );
});

describe('parseCidr and cidrContains', () => {
  it('matches by value within the family', () => {
    const linkLocal = parseCidr('169.254.0.0/16');
    expect(cidrContains(linkLocal, ip('169.254.0.1'))).toBe(true);
    expect(cidrContains(linkLocal, ip('169.255.0.1'))).toBe(false);
    expect(cidrContains(linkLocal, ip('::ffff:169.254.0.1'))).toBe(false);
    const v6 = parseCidr('fe80::/10');
    expect(cidrContains(v6, ip('febf:ffff::1'))).toBe(true);
    expect(cidrContains(v6, ip('fec0::1'))).toBe(false);
    expect(cidrContains(parseCidr('0.0.0.0/0'), ip('8.8.8.8'))).toBe(true);
    expect(cidrContains(parseCidr('::/128'), ip('0:0::0'))).toBe(true);
  });

  it.each(['169.254.0.0', '169.254.0.0/33', '::/129', 'x/8', '10.0.0.0/8/8', '10.0.0.0/-1', '10.0.0.0/'])(
    'rejects %j',
    (text) => {
      expect(() => parseCidr(text)).toThrow('not a CIDR range');
    },
  );
});
