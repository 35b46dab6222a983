// Checked custom hosts, reused for a short time: parsing, the range check and DNS cost more than
// the rest of a proxied request, and a client sends the same custom host on every call. Only
// successful checks are kept, with the addresses they were checked against (connections still go
// to those addresses only), so a cache hit is exactly as safe as the check it remembers.
import type { LookupFunction } from 'node:net';
import { withTimeout } from '@aigw/runtime';
import { parseCustomHost, pinnedLookup, resolveSafeTarget, type SafeTarget } from '@aigw/ssrf';
import { gatewayError } from '../errors.js';

const TTL_MS = 30_000;
const MAX_ENTRIES = 1024;
/** `dns.lookup` has no timeout of its own: a stuck resolver must not hold the request. */
const DNS_TIMEOUT_MS = 5_000;

export interface CheckedHost {
  readonly url: URL;
  readonly target: SafeTarget;
  /** Answers only with the checked addresses (for http.request / agents). */
  readonly lookup: LookupFunction;
}

export class CustomHostCache {
  private readonly entries = new Map<string, { host: CheckedHost; expires: number }>();
  /**
   * One pinned lookup per host name and set of checked addresses: a re-check that finds the same
   * addresses (every 30 s, or another custom host value on the same host) keeps the same lookup,
   * and with it the same upstream connection pool (upstream-pool.ts keys pinned pools by lookup).
   */
  private readonly lookups = new Map<string, LookupFunction>();

  constructor(private readonly allowlist: readonly string[]) {}

  /**
   * The checked host for a raw `x-service-custom-host` value; throws the gateway error otherwise.
   * Resolution gets at most 5 s, less when the request's own timeout is shorter.
   */
  async check(raw: string, requestTimeoutMs?: number): Promise<CheckedHost> {
    return this.cached(raw) ?? this.resolve(raw, requestTimeoutMs);
  }

  /** The checked host when a check of this value is cached and fresh (no promise, no wait). */
  cached(raw: string): CheckedHost | undefined {
    const hit = this.entries.get(raw);
    return hit && hit.expires > Date.now() ? hit.host : undefined;
  }

  private async resolve(raw: string, requestTimeoutMs: number | undefined): Promise<CheckedHost> {
    const now = Date.now();
    const url = parseCustomHost(raw);
    const ms = Math.min(requestTimeoutMs ?? DNS_TIMEOUT_MS, DNS_TIMEOUT_MS);
    const target = await withTimeout(resolveSafeTarget(url, { allowlist: this.allowlist }), ms, () =>
      gatewayError('upstream_unreachable', `resolving the custom host took longer than ${ms} ms`),
    );
    const host = { url, target, lookup: this.lookupFor(target) };
    this.entries.delete(raw);
    if (this.entries.size >= MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(raw, { host, expires: now + TTL_MS });
    return host;
  }

  private lookupFor(target: SafeTarget): LookupFunction {
    const addresses = target.addresses.map((a) => `${a.family}/${a.address}`);
    const key = `${target.hostname} ${addresses.join(' ')}`;
    let lookup = this.lookups.get(key);
    if (!lookup) {
      lookup = pinnedLookup(target);
      if (this.lookups.size >= MAX_ENTRIES) {
        const oldest = this.lookups.keys().next().value;
        if (oldest !== undefined) this.lookups.delete(oldest);
      }
      this.lookups.set(key, lookup);
    }
    return lookup;
  }
}
