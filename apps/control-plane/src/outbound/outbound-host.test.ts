// The control plane's outbound rule by value: metadata and this-host addresses refused in every
// spelling (IPv4 carried in IPv6 included), private and loopback addresses allowed.
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  checkOutboundHost,
  HostResolutionError,
  type LookupFn,
  MetadataHostError,
  refusedRange,
} from './outbound-host.js';

const answering =
  (...addresses: string[]): LookupFn =>
  async (): Promise<LookupAddress[]> =>
    addresses.map((address) => ({ address, family: isIP(address) }));

describe('refusedRange', () => {
  it.each([
    ['169.254.169.254', 'link-local 169.254.0.0/16'],
    ['169.254.170.2', 'link-local 169.254.0.0/16'],
    ['169.254.0.1', 'link-local'],
    ['100.100.100.200', 'Alibaba Cloud'],
    ['0.0.0.0', '"this host"'],
    ['0.1.2.3', '"this host"'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local fe80::/10'],
    ['febf:ffff::1', 'link-local fe80::/10'],
    ['fd00:ec2::254', 'AWS'],
    ['::ffff:169.254.169.254', '169.254.169.254 in IPv6, link-local'],
    ['::ffff:a9fe:a9fe', '169.254.169.254 in IPv6, link-local'],
    ['::ffff:0:a9fe:a9fe', '169.254.169.254 in IPv6'],
    ['::a9fe:a9fe', '169.254.169.254 in IPv6'],
    ['64:ff9b::a9fe:a9fe', '169.254.169.254 in IPv6'],
    ['64:ff9b:1::a9fe:a9fe', '169.254.169.254 in IPv6'],
    ['2002:a9fe:a9fe::', '169.254.169.254 in IPv6'],
    ['::ffff:100.100.100.200', 'Alibaba Cloud'],
    ['::ffff:0.0.0.0', '"this host"'],
    ['not-an-ip', 'not an IP address'],
  ])('refuses %s (%s)', (address, reason) => {
    expect(refusedRange(address)).toContain(reason);
  });

  it.each([
    '127.0.0.1',
    '::1',
    '10.0.0.5',
    '172.16.0.1',
    '192.168.1.1',
    '100.64.0.1',
    '100.100.100.201',
    'fd00::1',
    'fd00:ec2::253',
    'fec0::1',
    '::ffff:10.0.0.5',
    '::ffff:127.0.0.1',
    '64:ff9b::808:808',
    '8.8.8.8',
    '2606:4700:4700::1111',
    '169.253.255.255',
    '169.255.0.0',
  ])('allows %s (private addresses are the usual place for these services)', (address) => {
    expect(refusedRange(address)).toBeUndefined();
  });
});

describe('checkOutboundHost', () => {
  it.each([
    'http://[::ffff:169.254.169.254]/',
    'http://[64:ff9b::169.254.169.254]/',
    'http://[fe80::1]/',
    'http://[fd00:ec2::254]/',
    'http://[::]:8200/',
    'http://2852039166/',
    'http://0xa9fea9fe/',
    'http://169.254.169.254./',
    'http://0/',
    'https://100.100.100.200/',
  ])('refuses the literal %s without resolving anything', async (url) => {
    const lookup = async (): Promise<LookupAddress[]> => {
      throw new Error('no lookup for a literal');
    };
    await expect(checkOutboundHost(new URL(url), lookup)).rejects.toBeInstanceOf(MetadataHostError);
  });

  it('refuses a name when any of its answers is refused, naming it', async () => {
    for (const answers of [['169.254.169.254'], ['10.0.0.5', '::ffff:a9fe:a9fe'], ['fe80::1%eth0']]) {
      const attempt = checkOutboundHost(new URL('https://vault.internal.test:8200'), answering(...answers));
      await expect(attempt).rejects.toThrow(
        new MetadataHostError(
          `vault.internal.test:8200 resolves to ${answers.at(-1)}, ${refusedRange(answers.at(-1) ?? '')}: refused`,
        ),
      );
    }
  });

  it('returns the host name and every checked address once, in resolver order', async () => {
    const target = await checkOutboundHost(
      new URL('http://Vault.Internal.test./v1'),
      answering('10.0.0.5', '::1', '10.0.0.5'),
    );
    expect(target).toEqual({
      hostname: 'vault.internal.test',
      addresses: [
        { address: '10.0.0.5', family: 4 },
        { address: '::1', family: 6 },
      ],
    });
    expect(await checkOutboundHost(new URL('http://[::1]:9/'))).toEqual({
      hostname: '::1',
      addresses: [{ address: '::1', family: 6 }],
    });
  });

  it('says when a name does not resolve', async () => {
    const lookup = async (): Promise<LookupAddress[]> => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    await expect(checkOutboundHost(new URL('http://gone.test'), lookup)).rejects.toThrow(
      new HostResolutionError('gone.test could not be resolved (ENOTFOUND)'),
    );
    await expect(checkOutboundHost(new URL('http://empty.test'), answering())).rejects.toBeInstanceOf(
      HostResolutionError,
    );
  });
});
