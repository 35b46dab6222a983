// Checked custom hosts, reused for a short time: parsing, the range check and DNS cost more than
// the rest of a proxied request, and a client sends the same custom host on every call. Only
// successful checks are kept, with the addresses they were checked against (connections still go
// to those addresses only), so a cache hit is exactly as safe as the check it remembers.
import type { LookupFunction } from 'node:net';
import { parseCustomHost, pinnedLookup, resolveSafeTarget } from '../ssrf/index.js';

const TTL_MS = 30_000;
const MAX_ENTRIES = 1024;

export interface CheckedHost {
  readonly url: URL;
  readonly lookup: LookupFunction;
}

export class CustomHostCache {
  private readonly entries = new Map<string, { host: CheckedHost; expires: number }>();

  constructor(
    private readonly allowlist: readonly string[],
    private readonly deadline: <T>(work: Promise<T>, ms: number) => Promise<T>,
  ) {}

  /** The checked host for a raw `x-service-custom-host` value; throws the gateway error otherwise. */
  async check(raw: string, timeoutMs: number): Promise<CheckedHost> {
    const now = Date.now();
    const hit = this.entries.get(raw);
    if (hit && hit.expires > now) return hit.host;
    const url = parseCustomHost(raw);
    const safe = await this.deadline(resolveSafeTarget(url, { allowlist: this.allowlist }), timeoutMs);
    const host = { url, lookup: pinnedLookup(safe) };
    this.entries.delete(raw);
    if (this.entries.size >= MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(raw, { host, expires: now + TTL_MS });
    return host;
  }
}
