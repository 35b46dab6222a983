// Real sockets through undici: the pinned dispatcher connects only to the checked address of its one
// host, never asks DNS again, keeps the host name for TLS (SNI), and never follows a redirect.
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPinnedDispatcher, type PinnedDispatcherOptions, pinnedFetch } from './pinned-dispatcher.js';
import { type LookupFn, type PinnedTarget, resolveSafeTarget } from './resolve.js';
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
let seen: Seen[] = [];

beforeAll(async () => {
  servers = await startTestServers((canary) => ({
    '/redirect/canary': `http://127.0.0.1:${canary}/stolen`,
    '/redirect/same': '/landed',
  }));
  ({ port, seen } = servers);
});

afterAll(() => servers.close());

/** `fetch(url)` through a dispatcher pinned to `target`; the dispatcher is closed afterwards. */
async function fetchPinned(
  target: PinnedTarget,
  url: string,
  init?: RequestInit,
  options?: PinnedDispatcherOptions,
): Promise<string> {
  const dispatcher = createPinnedDispatcher(target, options);
  try {
    const res = await pinnedFetch(dispatcher)(url, init);
    return `${res.status} ${await res.text()}`;
  } finally {
    await dispatcher.destroy();
  }
}

/** The error code under a fetch failure (`fetch failed` with a cause). */
async function failure(promise: Promise<unknown>): Promise<string | undefined> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e as Error & { cause?: { code?: string; message?: string } },
  );
  expect(err).toBeInstanceOf(Error);
  return err?.cause?.code ?? err?.cause?.message ?? err?.message;
}

const loopback: PinnedTarget = { hostname: 'pinned.test', addresses: [{ address: '127.0.0.1', family: 4 }] };

describe('createPinnedDispatcher', () => {
  it('reaches the checked address under the host name (no DNS for pinned.test exists)', async () => {
    expect(await fetchPinned(loopback, `http://pinned.test:${port}/v1/models`)).toBe('200 ok');
    expect(seen.at(-1)).toEqual({ path: '/v1/models', host: `pinned.test:${port}` });
    // Spelling differences of the same name are the same host.
    expect(await fetchPinned(loopback, `http://PINNED.test.:${port}/again`)).toBe('200 ok');
    expect(seen.at(-1)?.path).toBe('/again');
  });

  it('never asks DNS again: a rebinding answer after the check is not used, however many requests', async () => {
    let answer = '127.0.0.1';
    let queries = 0;
    const lookup: LookupFn = async () => {
      queries += 1;
      return [{ address: answer, family: 4 }];
    };
    const target = await resolveSafeTarget(new URL(`http://rebind.test:${port}`), {
      allowlist: ['rebind.test'],
      lookup,
    });
    answer = '169.254.169.254';
    const dispatcher = createPinnedDispatcher(target);
    try {
      const fetch = pinnedFetch(dispatcher);
      for (const path of ['/one', '/two', '/three']) {
        const res = await fetch(`http://rebind.test:${port}${path}`);
        expect(await res.text()).toBe('ok');
        expect(seen.at(-1)).toEqual({ path, host: `rebind.test:${port}` });
      }
    } finally {
      await dispatcher.destroy();
    }
    expect(queries).toBe(1);
  });

  it('refuses another host, by name or by IP literal, and nothing connects', async () => {
    const before = seen.length;
    expect(await failure(fetchPinned(loopback, `http://other.test:${port}/x`))).toBe('ERR_SSRF_PINNED_HOST');
    // 127.0.0.1 is where the server listens, but a literal never goes through the lookup.
    expect(await failure(fetchPinned(loopback, `http://127.0.0.1:${port}/x`))).toBe('ERR_SSRF_PINNED_HOST');
    expect(seen.length).toBe(before);
  });

  it('dials the checked address only: an IPv6-only answer never reaches the IPv4 listener', async () => {
    const v6only: PinnedTarget = { hostname: 'v6.test', addresses: [{ address: '::1', family: 6 }] };
    const before = seen.length;
    // The server listens on 127.0.0.1 only: nothing answers on ::1 (or the host has no IPv6).
    expect(['ECONNREFUSED', 'EADDRNOTAVAIL', 'ENETUNREACH']).toContain(
      await failure(fetchPinned(v6only, `http://v6.test:${port}/x`)),
    );
    expect(seen.length).toBe(before);
  });

  it('never follows a redirect, not even when the caller asks to', async () => {
    const before = servers.canaryRequests();
    for (const redirect of [undefined, 'follow', 'manual'] as const) {
      const init = redirect === undefined ? undefined : { redirect };
      await expect(
        fetchPinned(loopback, `http://pinned.test:${port}/redirect/canary`, init),
      ).rejects.toThrow();
      await expect(fetchPinned(loopback, `http://pinned.test:${port}/redirect/same`, init)).rejects.toThrow();
    }
    expect(servers.canaryRequests()).toBe(before);
    expect(seen.some((s) => s.path === '/landed')).toBe(false);
  });

  it('an https target keeps the host name for SNI while connecting to the pinned address', async () => {
    await withHelloCatcher(async (tlsPort, hellos) => {
      const target: PinnedTarget = {
        hostname: 'provider.test',
        addresses: [{ address: '127.0.0.1', family: 4 }],
      };
      await expect(fetchPinned(target, `https://provider.test:${tlsPort}/v1`)).rejects.toThrow();
      expect(hellos).toHaveLength(1);
      expect(hellos[0]?.includes(Buffer.from('provider.test'))).toBe(true);
    });
  });

  describe('TLS verification against the host name, while dialling the pinned address', () => {
    // A test-only self-signed certificate for provider.test (testdata/, valid until 2126).
    const cert = readFileSync(new URL('../testdata/provider-test.cert.pem', import.meta.url), 'utf8');
    const key = readFileSync(new URL('../testdata/provider-test.key.pem', import.meta.url), 'utf8');
    let tlsServer: https.Server;
    let tlsPort = 0;
    beforeAll(async () => {
      tlsServer = https.createServer({ cert, key }, (_req, res) => res.end('secure'));
      tlsPort = await listen(tlsServer);
    });
    afterAll(() => close(tlsServer));

    const at = (hostname: string): PinnedTarget => ({
      hostname,
      addresses: [{ address: '127.0.0.1', family: 4 }],
    });

    it('connects when the certificate names the host and is trusted', async () => {
      expect(
        await fetchPinned(at('provider.test'), `https://provider.test:${tlsPort}/`, undefined, { ca: cert }),
      ).toBe('200 secure');
    });

    it('refuses a certificate for another name, though the address is the same', async () => {
      expect(
        await failure(
          fetchPinned(at('other.test'), `https://other.test:${tlsPort}/`, undefined, { ca: cert }),
        ),
      ).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
    });

    it('refuses an untrusted certificate (verification stays on)', async () => {
      expect(await failure(fetchPinned(at('provider.test'), `https://provider.test:${tlsPort}/`))).toBe(
        'DEPTH_ZERO_SELF_SIGNED_CERT',
      );
    });
  });
});
