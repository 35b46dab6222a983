import { describe, expect, it } from 'vitest';
import { blockedRange, isBlockedAddress, parseIp } from './address-ranges.js';

describe('parseIp', () => {
  it.each([
    ['0.0.0.0', 4, 0n],
    ['127.0.0.1', 4, 0x7f000001n],
    ['255.255.255.255', 4, 0xffffffffn],
    ['::', 6, 0n],
    ['::1', 6, 1n],
    ['1::', 6, 1n << 112n],
    ['::ffff:127.0.0.1', 6, 0xffff7f000001n],
    ['::ffff:7f00:1', 6, 0xffff7f000001n],
    ['0:0:0:0:0:ffff:169.254.169.254', 6, 0xffffa9fea9fen],
    ['fe80::1%eth0', 6, (0xfe80n << 112n) | 1n],
    ['FE80::1', 6, (0xfe80n << 112n) | 1n],
    ['2001:db8:0:0:1:0:0:1', 6, 0x20010db8000000000001000000000001n],
  ])('%s', (text, family, value) => {
    expect(parseIp(text)).toEqual({ family, value });
  });

  it.each(['', 'localhost', '127.1', '0177.0.0.1', '01.2.3.4', '2130706433', '[::1]', '1.2.3.256', ':::'])(
    'rejects %j',
    (text) => {
      expect(parseIp(text)).toBeUndefined();
    },
  );
});

describe('blockedRange', () => {
  it.each([
    ['0.0.0.0', '"this network" 0.0.0.0/8'],
    ['0.255.1.1', '"this network" 0.0.0.0/8'],
    ['10.1.2.3', 'private 10.0.0.0/8'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['100.100.100.200', 'cloud metadata service 100.100.100.200/32'],
    ['127.0.0.1', 'loopback 127.0.0.0/8'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'cloud metadata service 169.254.169.254/32'],
    ['169.254.170.2', 'container credentials service'],
    ['169.254.1.1', 'link-local 169.254.0.0/16'],
    ['172.16.0.1', 'private 172.16.0.0/12'],
    ['172.31.255.255', 'private 172.16.0.0/12'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['192.0.2.1', 'TEST-NET-1'],
    ['192.31.196.1', 'AS112'],
    ['192.52.193.1', 'AMT'],
    ['192.88.99.1', '6to4 relay anycast'],
    ['192.168.1.1', 'private 192.168.0.0/16'],
    ['192.175.48.1', 'AS112'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['198.51.100.7', 'TEST-NET-2'],
    ['203.0.113.9', 'TEST-NET-3'],
    ['224.0.0.1', 'multicast 224.0.0.0/4'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved 240.0.0.0/4'],
    ['255.255.255.255', 'broadcast 255.255.255.255/32'],
    ['::', 'unspecified ::/128'],
    ['::1', 'loopback ::1/128'],
    ['::7f00:1', 'IPv4-compatible (deprecated)'],
    ['::8.8.8.8', 'IPv4-compatible (deprecated)'],
    ['::ffff:127.0.0.1', 'IPv4-mapped ::ffff:0:0/96 of 127.0.0.1, loopback 127.0.0.0/8'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped ::ffff:0:0/96 of 169.254.169.254, cloud metadata service'],
    ['::ffff:0:7f00:1', 'IPv4-translated'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 64:ff9b::/96 of 169.254.169.254'],
    ['64:ff9b::10.0.0.1', 'NAT64 64:ff9b::/96 of 10.0.0.1, private'],
    ['64:ff9b:1::808:808', 'local-use NAT64'],
    ['100::1', 'discard-only'],
    ['2001::1', 'Teredo 2001::/32'],
    ['2001:2::1', 'IETF protocol assignments 2001::/23'],
    ['2001:db8::1', 'documentation 2001:db8::/32'],
    ['2002:a9fe:a9fe::', '6to4 2002::/16'],
    ['2002:808:808::1', '6to4 2002::/16'],
    ['3fff::1', 'documentation 3fff::/20'],
    ['5f00::1', 'segment routing'],
    ['fc00::1', 'unique local fc00::/7'],
    ['fd00::1', 'unique local fc00::/7'],
    ['fd00:ec2::254', 'cloud metadata service fd00:ec2::254/128'],
    ['fe80::1', 'link-local fe80::/10'],
    ['fe80::1%eth0', 'link-local fe80::/10'],
    ['febf::1', 'link-local fe80::/10'],
    ['fec0::1', 'site-local (deprecated)'],
    ['ff02::1', 'multicast ff00::/8'],
    ['4000::1', 'not global unicast (outside 2000::/3)'],
    ['1234::1', 'not global unicast (outside 2000::/3)'],
    ['localhost', 'not an IP address'],
    ['127.1', 'not an IP address'],
    ['', 'not an IP address'],
  ])('blocks %s (%s)', (ip, name) => {
    expect(blockedRange(ip)).toContain(name);
    expect(isBlockedAddress(ip)).toBe(true);
  });

  it.each([
    '1.1.1.1',
    '8.8.8.8',
    '93.184.216.34',
    '9.255.255.255',
    '11.0.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '126.255.255.255',
    '128.0.0.0',
    '169.253.255.255',
    '169.255.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.167.255.255',
    '192.169.0.0',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '2001:200::1',
    '2001:db9::1',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
  ])('allows public %s', (ip) => {
    expect(blockedRange(ip)).toBeUndefined();
    expect(isBlockedAddress(ip)).toBe(false);
  });
});
