// Real sockets: the allowlist opens loopback, the pinned agent connects only to the checked address,
// TLS keeps the host name for SNI, and a 302 to the metadata service comes back unfollowed.
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import httpProxy from 'http-proxy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSsrfError } from './errors.js';
import { createPinnedAgent, pinnedLookup } from './pinned-agent.js';
import { type LookupFn, resolveCustomHost, type SafeTarget } from './resolve.js';
import {
  close,
  listen,
  type Seen,
  startTestServers,
  type TestServers,
  withHelloCatcher,
} from './test-servers.test-support.js';

let servers: TestServers;
let port = 0;
let canaryPort = 0;
let seen: Seen[] = [];

beforeAll(async () => {
  servers = await startTestServers((canary) => ({
    '/redirect/metadata': 'http://169.254.169.254/latest/meta-data/iam/',
    '/redirect/canary': `http://127.0.0.1:${canary}/stolen`,
  }));
  ({ port, canaryPort, seen } = servers);
});

afterAll(() => servers.close());

interface Answer {
  status: number;
  location: string | undefined;
  body: string;
}

function get(url: URL, options: http.RequestOptions): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, options, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function getPinned(target: SafeTarget, path: string, host = target.url.host): Promise<Answer> {
  const agent = createPinnedAgent(target);
  try {
    const url = new URL(path, target.url);
    url.host = host;
    return await get(url, { agent });
  } finally {
    agent.destroy();
  }
}

describe('loopback through the allowlist', () => {
  it('is blocked without an allowlist, and the server sees nothing', async () => {
    const before = seen.length;
    const attempt = resolveCustomHost(`http://127.0.0.1:${port}`, { allowlist: [] });
    await expect(attempt).rejects.toMatchObject({ code: 'custom_host_blocked' });
    await expect(resolveCustomHost(`http://localhost:${port}`, { allowlist: [] })).rejects.toMatchObject({
      code: 'custom_host_blocked',
    });
    expect(seen.length).toBe(before);
  });

  it('reaches the server when 127.0.0.1 is allowlisted', async () => {
    const target = await resolveCustomHost(`http://127.0.0.1:${port}/v1`, { allowlist: ['127.0.0.1'] });
    expect(target).toMatchObject({ allowlisted: true, addresses: [{ address: '127.0.0.1', family: 4 }] });
    const answer = await getPinned(target, 'v1/models');
    expect(answer).toMatchObject({ status: 200, body: 'ok' });
    expect(seen.at(-1)).toEqual({ path: '/v1/models', host: `127.0.0.1:${port}` });
  });

  it('reaches the server by name when localhost is allowlisted (system resolver)', async () => {
    const target = await resolveCustomHost(`http://localhost:${port}`, { allowlist: ['localhost'] });
    expect(target.hostname).toBe('localhost');
    expect(target.addresses.some((a) => a.address === '127.0.0.1')).toBe(true);
    const answer = await getPinned(target, '/by-name');
    expect(answer.status).toBe(200);
    expect(seen.at(-1)).toEqual({ path: '/by-name', host: `localhost:${port}` });
  });

  it('works as a per-request lookup option too', async () => {
    const target = await resolveCustomHost(`http://localhost:${port}`, { allowlist: ['localhost'] });
    const answer = await get(new URL('/lookup-option', target.url), {
      lookup: pinnedLookup(target),
      agent: false,
    });
    expect(answer.status).toBe(200);
    expect(seen.at(-1)?.path).toBe('/lookup-option');
  });
});

describe('pinning', () => {
  it('never asks DNS again: a rebinding answer after the check is not used', async () => {
    let answer: LookupAddress[] = [{ address: '127.0.0.1', family: 4 }];
    let queries = 0;
    const lookup: LookupFn = async () => {
      queries += 1;
      return answer;
    };
    const target = await resolveCustomHost(`http://rebind.test:${port}`, {
      allowlist: ['rebind.test'],
      lookup,
    });
    answer = [{ address: '192.0.2.1', family: 4 }];
    const result = await getPinned(target, '/pinned');
    expect(result.status).toBe(200);
    expect(seen.at(-1)?.path).toBe('/pinned');
    expect(queries).toBe(1);
  });

  it('the lookup refuses any other host name', async () => {
    const target = await resolveCustomHost(`http://localhost:${port}`, { allowlist: ['localhost'] });
    const lookup = pinnedLookup(target);
    const refused = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
      lookup('evil.example.com', { all: true }, (err) => resolve(err));
    });
    expect(refused?.code).toBe('ERR_SSRF_PINNED_HOST');
    const same = await new Promise<LookupAddress[] | string>((resolve, reject) => {
      lookup('LOCALHOST.', { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses)));
    });
    expect(same).toEqual(target.addresses);
  });

  it('answers a single-address lookup per family, and fails for a family it has not checked', async () => {
    const target = await resolveCustomHost('http://dual.test', {
      allowlist: [],
      lookup: async () => [
        { address: '2606:4700::1', family: 6 },
        { address: '93.184.216.34', family: 4 },
      ],
    });
    const lookup = pinnedLookup(target);
    const one = (family: 0 | 4 | 6) =>
      new Promise<string>((resolve, reject) => {
        lookup('dual.test', { family }, (err, address) => (err ? reject(err) : resolve(String(address))));
      });
    await expect(one(0)).resolves.toBe('2606:4700::1');
    await expect(one(4)).resolves.toBe('93.184.216.34');
    const v4only = await resolveCustomHost('http://93.184.216.34', { allowlist: [] });
    await expect(
      new Promise((resolve, reject) => {
        pinnedLookup(v4only)('93.184.216.34', { family: 6 }, (err) => (err ? reject(err) : resolve(null)));
      }),
    ).rejects.toMatchObject({ code: 'ERR_SSRF_PINNED_HOST' });
  });

  it('the agent refuses another host, by name or by IP literal, and nothing connects', async () => {
    const target = await resolveCustomHost(`http://localhost:${port}`, { allowlist: ['localhost'] });
    const before = seen.length;
    await expect(getPinned(target, '/other-name', `other.test:${port}`)).rejects.toMatchObject({
      code: 'ERR_SSRF_PINNED_HOST',
    });
    // 127.0.0.1 is where the server listens, but Node never calls lookup for IP literals.
    await expect(getPinned(target, '/other-ip', `127.0.0.1:${port}`)).rejects.toMatchObject({
      code: 'ERR_SSRF_PINNED_HOST',
    });
    expect(seen.length).toBe(before);
  });

  it('an https target keeps the host name for SNI while connecting to the pinned address', async () => {
    await withHelloCatcher(async (tlsPort, hellos) => {
      const lookup: LookupFn = async () => [{ address: '127.0.0.1', family: 4 }];
      const target = await resolveCustomHost(`https://provider.test:${tlsPort}/v1`, {
        allowlist: ['provider.test'],
        lookup,
      });
      const agent = createPinnedAgent(target);
      expect(agent).toBeInstanceOf(https.Agent);
      const failed = await new Promise<Error>((resolve) => {
        const req = https.request(new URL('/v1/models', target.url), { agent }, () =>
          resolve(new Error('answered')),
        );
        req.on('error', resolve);
        req.end();
      });
      agent.destroy();
      expect(failed.message).not.toBe('answered');
      expect(hellos).toHaveLength(1);
      expect(hellos[0]?.includes(Buffer.from('provider.test'))).toBe(true);
    });
  });
});

describe('redirects', () => {
  it('a 302 to the metadata service comes back to the client untouched', async () => {
    const target = await resolveCustomHost(`http://127.0.0.1:${port}`, { allowlist: ['127.0.0.1'] });
    const answer = await getPinned(target, '/redirect/metadata');
    expect(answer).toEqual({
      status: 302,
      location: 'http://169.254.169.254/latest/meta-data/iam/',
      body: 'moved',
    });
  });

  it('nothing connects to the Location of a 302', async () => {
    const target = await resolveCustomHost(`http://127.0.0.1:${port}`, { allowlist: ['127.0.0.1'] });
    const answer = await getPinned(target, '/redirect/canary');
    expect(answer.status).toBe(302);
    expect(answer.location).toBe(`http://127.0.0.1:${canaryPort}/stolen`);
    expect(servers.canaryRequests()).toBe(0);
  });

  it('through http-proxy with the pinned agent, as the gateway forwards: base path joined, 302 untouched', async () => {
    // provider.test exists only in this lookup, so the request can only arrive through the pinned agent.
    const target = await resolveCustomHost(`http://provider.test:${port}/redirect`, {
      allowlist: ['provider.test'],
      lookup: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    const agent = createPinnedAgent(target);
    const proxy = httpProxy.createProxyServer({});
    const gateway = http.createServer((req, res) => {
      proxy.web(req, res, { target: target.url.href, agent, changeOrigin: true }, (err) => {
        res.writeHead(502).end(String(err));
      });
    });
    const gatewayPort = await listen(gateway);
    try {
      const answer = await get(new URL(`http://127.0.0.1:${gatewayPort}/metadata`), { agent: false });
      expect(answer).toEqual({
        status: 302,
        location: 'http://169.254.169.254/latest/meta-data/iam/',
        body: 'moved',
      });
      expect(seen.at(-1)).toEqual({ path: '/redirect/metadata', host: `provider.test:${port}` });
    } finally {
      agent.destroy();
      proxy.close();
      await close(gateway);
    }
  });

  it('the Location itself would be refused as a custom host', async () => {
    let caught: unknown;
    try {
      await resolveCustomHost('http://169.254.169.254/latest/meta-data/iam/', { allowlist: ['127.0.0.1'] });
    } catch (err) {
      caught = err;
    }
    expect(isSsrfError(caught, 'custom_host_blocked')).toBe(true);
  });
});
