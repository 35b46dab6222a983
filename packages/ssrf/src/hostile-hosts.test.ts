// The hostile custom-host table: every value is refused before any connection is made. A canary
// server on 127.0.0.1 stands in for the internal network and must see zero requests.
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import { type AddressInfo, isIP } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSsrfError } from './errors.js';
import { createPinnedAgent } from './pinned-agent.js';
import { type LookupFn, resolveCustomHost } from './resolve.js';

const DNS: Record<string, readonly string[] | string> = {
  'metadata.google.internal': ['169.254.169.254'],
  'instance-data': ['169.254.169.254'],
  'metadata.example.com': ['fd00:ec2::254'],
  'localtest.me': ['127.0.0.1'],
  '127.0.0.1.nip.io': ['127.0.0.1'],
  'mixed.example.com': ['93.184.216.34', '127.0.0.1'],
  'mixed-v6.example.com': ['2606:4700::1111', '::1'],
  'mapped.example.com': ['::ffff:127.0.0.1'],
  'internal.example.com': ['10.0.0.5'],
  'kubernetes.default.svc': ['10.96.0.1'],
  'host.docker.internal': ['172.17.0.1'],
  'ula.example.com': ['fd12:3456::1'],
  'nat64.example.com': ['64:ff9b::7f00:1'],
  'nxdomain.example.com': 'ENOTFOUND',
  'servfail.example.com': 'EAI_AGAIN',
  'empty.example.com': [],
  'api.example.com': ['93.184.216.34'],
};

const lookup: LookupFn = async (hostname) => {
  const record = DNS[hostname];
  if (record === undefined) throw new Error(`test DNS has no record for ${hostname}`);
  if (typeof record === 'string') throw Object.assign(new Error(`getaddrinfo ${record}`), { code: record });
  return record.map((address): LookupAddress => ({ address, family: isIP(address) }));
};

// `{port}` is the canary's port, so a value that slipped through would land on the canary.
const HOSTILE: readonly string[] = [
  'http://127.0.0.1:{port}',
  'http://127.0.0.1.:{port}',
  'http://127.1:{port}',
  'http://127.0.1:{port}',
  'http://2130706433:{port}',
  'http://0x7f000001:{port}',
  'http://0x7f.1:{port}',
  'http://0177.0.0.1:{port}',
  'http://017700000001:{port}',
  'http://0x7f.0.0.1:{port}',
  'http://127.000.000.001:{port}',
  'HTTP://127.0.0.1:{port}',
  'http://0:{port}',
  'http://0.0.0.0:{port}',
  'http://[::]:{port}',
  'http://[::1]:{port}',
  'http://[0:0:0:0:0:0:0:1]:{port}',
  'http://[::ffff:127.0.0.1]:{port}',
  'http://[::ffff:7f00:1]:{port}',
  'http://[::127.0.0.1]:{port}',
  'http://[64:ff9b::7f00:1]:{port}',
  'http://localhost:{port}',
  'http://LOCALHOST.:{port}',
  'http://foo.localhost:{port}',
  'http://localtest.me:{port}',
  'http://127.0.0.1.nip.io:{port}',
  'http://mixed.example.com:{port}',
  'http://mixed-v6.example.com:{port}',
  'http://mapped.example.com:{port}',
  'http://nat64.example.com:{port}',
  'http://169.254.169.254/latest/meta-data',
  'http://169.254.170.2/v2/credentials',
  'http://100.100.100.200/latest/meta-data',
  'http://[0:0:0:0:0:ffff:169.254.169.254]',
  'http://[::ffff:a9fe:a9fe]',
  'http://[64:ff9b::a9fe:a9fe]',
  'http://[64:ff9b:1::a9fe:a9fe]',
  'http://[2002:a9fe:a9fe::]',
  'http://[2001::a9fe:a9fe]',
  'http://[fd00:ec2::254]',
  'http://metadata.google.internal/computeMetadata/v1/',
  'http://instance-data',
  'http://metadata.example.com',
  'http://100.64.0.1',
  'http://10.0.0.1',
  'http://172.16.0.1',
  'http://172.31.255.255',
  'http://192.168.1.1',
  'http://192.0.0.8',
  'http://192.0.2.1',
  'http://198.18.0.1',
  'http://198.51.100.7',
  'http://203.0.113.9',
  'http://192.88.99.1',
  'http://224.0.0.1',
  'http://240.0.0.1',
  'http://255.255.255.255',
  'http://[fe80::1]',
  'http://[fe80::1%25eth0]',
  'http://[fd00::1]',
  'http://[fec0::1]',
  'http://[ff02::1]',
  'http://[100::1]',
  'http://[2001:db8::1]',
  'http://internal.example.com',
  'http://kubernetes.default.svc',
  'http://host.docker.internal',
  'http://ula.example.com',
  'http://nxdomain.example.com',
  'http://servfail.example.com',
  'http://empty.example.com',
  'file:///etc/passwd',
  'gopher://127.0.0.1:{port}/_GET',
  'ftp://127.0.0.1:{port}',
  'javascript:alert(1)',
  'data:text/html,hi',
  'http://user:pass@api.example.com',
  'http://api.example.com@127.0.0.1:{port}',
  'http://a@127.0.0.1:{port}@api.example.com',
  'http://127.0.0.1:{port}#@api.example.com',
  'http://api.example.com\\@127.0.0.1:{port}',
  'http://127.0.0.%31:{port}',
  'http://%6c%6f%63%61%6c%68%6f%73%74:{port}',
  'http://127。0。0。1:{port}',
  'http://',
  '',
  ' http://api.example.com',
  'http://api.example.com\r\nHost: 127.0.0.1',
  'http://api.example.com\u0000',
  'http:/127.0.0.1:{port}',
  'http:127.0.0.1:{port}',
  `http://api.example.com/${'a'.repeat(2100)}`,
];

let canary: http.Server;
let port = 0;
let canaryRequests = 0;

beforeAll(async () => {
  canary = http.createServer((_req, res) => {
    canaryRequests += 1;
    res.end('reached');
  });
  await new Promise<void>((resolve) => canary.listen(0, '127.0.0.1', resolve));
  port = (canary.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => canary.close(() => resolve()));
});

/** What the proxy does: resolve and check, and only on success connect, to the checked address. */
async function requestIfSafe(raw: string, allowlist: readonly string[] = []): Promise<number> {
  const target = await resolveCustomHost(raw, { allowlist, lookup });
  const agent = createPinnedAgent(target);
  try {
    return await new Promise<number>((resolve, reject) => {
      const req = http.request(target.url, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end();
    });
  } finally {
    agent.destroy();
  }
}

describe('hostile custom hosts', () => {
  it('has a table worth the name', () => {
    expect(HOSTILE.length).toBeGreaterThanOrEqual(60);
    expect(new Set(HOSTILE).size).toBe(HOSTILE.length);
  });

  it.each(HOSTILE)('refuses %j', async (template) => {
    const raw = template.replaceAll('{port}', String(port));
    let caught: unknown;
    try {
      await requestIfSafe(raw);
    } catch (err) {
      caught = err;
    }
    expect(isSsrfError(caught, 'custom_host_blocked')).toBe(true);
    expect(caught).toMatchObject({ status: 400, param: 'x-service-custom-host' });
  });

  it('left the canary untouched', () => {
    expect(canaryRequests).toBe(0);
  });

  it('control: the same helper does reach the canary when the host is allowlisted', async () => {
    await expect(requestIfSafe(`http://127.0.0.1:${port}/`, ['127.0.0.1'])).resolves.toBe(200);
    expect(canaryRequests).toBe(1);
  });
});

describe('public custom hosts', () => {
  it.each([
    ['http://93.184.216.34', '93.184.216.34'],
    ['https://api.example.com/v1', '93.184.216.34'],
    ['https://[2606:4700:4700::1111]/v1', '2606:4700:4700::1111'],
    ['http://8.8.8.8:8080/base/path', '8.8.8.8'],
    ['http://172.32.0.1', '172.32.0.1'],
    ['http://100.128.0.1', '100.128.0.1'],
    ['http://[::ffff:8.8.8.8]', '::ffff:808:808'],
  ])('accepts %s', async (raw, address) => {
    const target = await resolveCustomHost(raw, { allowlist: [], lookup });
    expect(target.allowlisted).toBe(false);
    expect(target.addresses.map((a) => a.address)).toEqual([address]);
  });
});
