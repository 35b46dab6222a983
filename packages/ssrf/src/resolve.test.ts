import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { describe, expect, it } from 'vitest';
import { isSsrfError } from './errors.js';
import { parseCustomHost } from './host-url.js';
import { type LookupFn, normaliseAllowlist, resolveCustomHost, resolveSafeTarget } from './resolve.js';

/** A resolver that knows only `records` (addresses, or an error code) and records every query. */
function fakeDns(records: Record<string, readonly string[] | string>): LookupFn & { queries: string[] } {
  const queries: string[] = [];
  const lookup = async (hostname: string): Promise<LookupAddress[]> => {
    queries.push(hostname);
    const record = records[hostname];
    if (record === undefined) throw new Error(`test DNS has no record for ${hostname}`);
    if (typeof record === 'string') {
      throw Object.assign(new Error(`getaddrinfo ${record} ${hostname}`), { code: record });
    }
    return record.map((address) => ({ address, family: isIP(address) }));
  };
  return Object.assign(lookup, { queries });
}

async function rejection(promise: Promise<unknown>): Promise<{ code: string | null; message: string }> {
  try {
    await promise;
  } catch (err) {
    if (!isSsrfError(err, 'custom_host_blocked')) throw err;
    expect(err.param).toBe('x-service-custom-host');
    return { code: err.code, message: err.message };
  }
  throw new Error('resolved');
}

describe('resolveSafeTarget', () => {
  it('accepts a name whose every address is public, keeping resolver order and dropping repeats', async () => {
    const lookup = fakeDns({
      'api.example.com': ['2606:4700::6810:84e5', '104.16.132.229', '104.16.132.229'],
    });
    const target = await resolveCustomHost('https://API.example.com./v1', { allowlist: [], lookup });
    expect(target).toMatchObject({
      hostname: 'api.example.com',
      allowlisted: false,
      addresses: [
        { address: '2606:4700::6810:84e5', family: 6 },
        { address: '104.16.132.229', family: 4 },
      ],
    });
    expect(target.url.href).toBe('https://api.example.com/v1');
    expect(lookup.queries).toEqual(['api.example.com']);
  });

  it('accepts public IP literals without asking DNS', async () => {
    const lookup = fakeDns({});
    const v4 = await resolveCustomHost('http://93.184.216.34/v1', { allowlist: [], lookup });
    expect(v4.addresses).toEqual([{ address: '93.184.216.34', family: 4 }]);
    const v6 = await resolveCustomHost('https://[2606:4700:4700::1111]:8443', { allowlist: [], lookup });
    expect(v6).toMatchObject({ hostname: '2606:4700:4700::1111', addresses: [{ family: 6 }] });
    expect(lookup.queries).toEqual([]);
  });

  it('rejects a mixed public and private answer instead of picking the public address', async () => {
    const lookup = fakeDns({ 'mixed.example.com': ['93.184.216.34', '10.0.0.7'] });
    const error = await rejection(resolveCustomHost('https://mixed.example.com', { allowlist: [], lookup }));
    expect(error.message).toBe(
      'custom host mixed.example.com resolves to 10.0.0.7 (private 10.0.0.0/8), which is blocked',
    );
  });

  it('gives NXDOMAIN its own message', async () => {
    const lookup = fakeDns({ 'nope.example.com': 'ENOTFOUND' });
    const error = await rejection(resolveCustomHost('https://nope.example.com', { allowlist: [], lookup }));
    expect(error.message).toBe('custom host nope.example.com does not exist (DNS: no such name)');
  });

  it('rejects when DNS fails temporarily or answers nothing', async () => {
    const lookup = fakeDns({ 'slow.example.com': 'EAI_AGAIN', 'empty.example.com': [] });
    const failed = await rejection(resolveCustomHost('https://slow.example.com', { allowlist: [], lookup }));
    expect(failed.message).toBe('custom host slow.example.com could not be resolved (DNS: EAI_AGAIN)');
    const empty = await rejection(resolveCustomHost('https://empty.example.com', { allowlist: [], lookup }));
    expect(empty.message).toBe('custom host empty.example.com resolved to no addresses');
  });

  it('rejects a resolver answer that is not an IP address', async () => {
    const lookup = async (): Promise<LookupAddress[]> => [{ address: 'not-an-ip', family: 4 }];
    const error = await rejection(resolveCustomHost('https://odd.example.com', { allowlist: [], lookup }));
    expect(error.message).toContain('resolves to not-an-ip (not an IP address)');
  });

  it('treats localhost names as loopback without asking DNS', async () => {
    const lookup = fakeDns({});
    for (const raw of [
      'http://localhost',
      'http://LOCALHOST.',
      'http://foo.localhost',
      'http://a.b.localhost:8080',
    ]) {
      const error = await rejection(resolveCustomHost(raw, { allowlist: [], lookup }));
      expect(error.message).toContain('is a localhost name, which always means loopback');
    }
    expect(lookup.queries).toEqual([]);
  });

  it('names the blocked range of an IP literal, unwrapping IPv4-mapped addresses', async () => {
    const error = await rejection(resolveCustomHost('http://[::ffff:169.254.169.254]', { allowlist: [] }));
    expect(error.message).toBe(
      'custom host ::ffff:a9fe:a9fe is in a blocked address range ' +
        '(IPv4-mapped ::ffff:0:0/96 of 169.254.169.254, cloud metadata service 169.254.169.254/32)',
    );
  });

  it('reports the param it was given', async () => {
    await expect(
      resolveSafeTarget(parseCustomHost('http://10.0.0.1'), { allowlist: [], param: 'custom_host' }),
    ).rejects.toMatchObject({ code: 'custom_host_blocked', param: 'custom_host' });
  });
});

describe('allowlist', () => {
  it('exempts an allowlisted IP literal, whatever its spelling', async () => {
    for (const raw of ['http://127.0.0.1:8080', 'http://2130706433:8080', 'http://127.1:8080']) {
      const target = await resolveCustomHost(raw, { allowlist: ['127.0.0.1'] });
      expect(target).toMatchObject({ hostname: '127.0.0.1', allowlisted: true });
    }
    const v6 = await resolveCustomHost('http://[0:0::1]:8080', { allowlist: ['[::1]'] });
    expect(v6).toMatchObject({
      hostname: '::1',
      allowlisted: true,
      addresses: [{ address: '::1', family: 6 }],
    });
  });

  it('exempts an allowlisted name (case and trailing dot ignored) and still pins its addresses', async () => {
    const lookup = fakeDns({ 'mock-provider': ['172.18.0.5'], localhost: ['::1', '127.0.0.1'] });
    const mock = await resolveCustomHost('http://Mock-Provider.:9000/v1', {
      allowlist: ['MOCK-PROVIDER.'],
      lookup,
    });
    expect(mock).toMatchObject({ allowlisted: true, addresses: [{ address: '172.18.0.5', family: 4 }] });
    const local = await resolveCustomHost('http://localhost:9000', { allowlist: ['localhost'], lookup });
    expect(local.addresses).toEqual([
      { address: '::1', family: 6 },
      { address: '127.0.0.1', family: 4 },
    ]);
  });

  it('matches exactly: no subdomains, no other spellings of other hosts', async () => {
    const lookup = fakeDns({ 'evil.mock-provider': ['10.0.0.1'], 'localhost.evil.com': ['127.0.0.1'] });
    await rejection(resolveCustomHost('http://evil.mock-provider', { allowlist: ['mock-provider'], lookup }));
    await rejection(resolveCustomHost('http://foo.localhost', { allowlist: ['localhost'], lookup }));
    await rejection(resolveCustomHost('http://localhost.evil.com', { allowlist: ['localhost'], lookup }));
    await rejection(resolveCustomHost('http://127.0.0.2', { allowlist: ['127.0.0.1'], lookup }));
    await rejection(resolveCustomHost('http://[::ffff:127.0.0.1]', { allowlist: ['127.0.0.1'], lookup }));
  });

  it('does not exempt a name because it resolves to an allowlisted address', async () => {
    const lookup = fakeDns({ 'sneaky.example.com': ['127.0.0.1'] });
    const error = await rejection(
      resolveCustomHost('http://sneaky.example.com', { allowlist: ['127.0.0.1'], lookup }),
    );
    expect(error.message).toContain('resolves to 127.0.0.1 (loopback 127.0.0.0/8)');
  });
});

describe('normaliseAllowlist', () => {
  it('lower-cases and strips brackets and trailing dots', () => {
    expect(
      normaliseAllowlist(['LocalHost.', ' 127.0.0.1 ', '[::1]', 'mock_provider', 'host.docker.internal']),
    ).toEqual(['localhost', '127.0.0.1', '::1', 'mock_provider', 'host.docker.internal']);
  });

  it('lists every entry that is not a host name or IP literal', () => {
    expect(() =>
      normaliseAllowlist(['localhost:8080', 'ok.example', 'http://x', '*.example.com', 'a..b', '']),
    ).toThrow(
      'not a host name or IP address (host:port is not supported): localhost:8080, http://x, *.example.com, a..b, ',
    );
  });
});
