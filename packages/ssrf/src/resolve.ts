// Decides whether a parsed custom host may be reached: allowlist, then IP literal or DNS answer
// against the blocked ranges. The addresses it returns are the only ones the proxy may connect to.
import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import type { AppError } from '@aigw/runtime';
import { blockedRange, parseIp } from './address-ranges.js';
import { CUSTOM_HOST_HEADER, ssrfError } from './errors.js';
import { bareHostname, hostKey, isHostName, isLocalhostName } from './host-key.js';
import { type CustomHostOptions, parseCustomHost } from './host-url.js';

/** Every address a host name resolves to; rejects with a `code` (`ENOTFOUND`, `EAI_AGAIN`, ...). */
export type LookupFn = (hostname: string) => Promise<readonly LookupAddress[]>;

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** A host name and the addresses checked for it: all a pinned connection needs. */
export interface PinnedTarget {
  /** Lower-case, without IPv6 brackets or trailing dot: what `http.request` gets as `host`. */
  readonly hostname: string;
  /** The checked addresses; the connection must go to one of these and nowhere else. */
  readonly addresses: readonly ResolvedAddress[];
}

export interface SafeTarget extends PinnedTarget {
  /** The normalised custom host URL (base path kept). */
  readonly url: URL;
  /** True when the host matched `CUSTOM_HOST_ALLOWLIST` and the range check was skipped. */
  readonly allowlisted: boolean;
}

export interface ResolveOptions extends CustomHostOptions {
  /**
   * Host names and IP literals exempt from the range check (`CUSTOM_HOST_ALLOWLIST`). Matching is exact
   * and case-insensitive, ignoring a trailing dot and IPv6 brackets; `localhost` does not cover
   * `*.localhost`, and `host:port` entries are not supported (see `normaliseAllowlist`).
   */
  readonly allowlist: readonly string[];
  /** Defaults to the system resolver (`dns.lookup`, all addresses, resolver order). */
  readonly lookup?: LookupFn;
}

export const systemLookup: LookupFn = (hostname) => dnsLookup(hostname, { all: true, order: 'verbatim' });

const DNS_NO_SUCH_NAME = new Set(['ENOTFOUND', 'ENODATA', 'EAI_NONAME', 'EAI_NODATA']);

/**
 * Checks allowlist entries once (at startup): each must be a host name or an IP literal. Returns them
 * lower-cased without trailing dot or brackets; throws an Error listing every entry that is not.
 */
export function normaliseAllowlist(entries: readonly string[]): string[] {
  const bad: string[] = [];
  const out = entries.map((entry) => {
    const bare = bareHostname(entry.trim());
    if (parseIp(bare) === undefined && !isHostName(bare)) bad.push(entry);
    return bare;
  });
  if (bad.length > 0) {
    throw new Error(`not a host name or IP address (host:port is not supported): ${bad.join(', ')}`);
  }
  return out;
}

function isAllowlisted(hostname: string, allowlist: readonly string[]): boolean {
  const key = hostKey(hostname);
  return allowlist.some((entry) => hostKey(entry.trim()) === key);
}

function blocked(param: string, message: string, cause?: unknown): AppError {
  return ssrfError('custom_host_blocked', message, { param, ...(cause === undefined ? {} : { cause }) });
}

async function lookupAll(
  hostname: string,
  lookup: LookupFn,
  param: string,
): Promise<readonly LookupAddress[]> {
  let answers: readonly LookupAddress[];
  try {
    answers = await lookup(hostname);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    if (code !== undefined && DNS_NO_SUCH_NAME.has(code)) {
      throw blocked(param, `custom host ${hostname} does not exist (DNS: no such name)`, err);
    }
    throw blocked(
      param,
      `custom host ${hostname} could not be resolved (DNS: ${code ?? 'lookup failed'})`,
      err,
    );
  }
  if (answers.length === 0) throw blocked(param, `custom host ${hostname} resolved to no addresses`);
  return answers;
}

/**
 * Resolves `url` (from `parseCustomHost`) and checks every address. A mixed answer (one public, one
 * private) is rejected as a whole: picking the good record would let a rebinding name win the race.
 * Throws `custom_host_blocked`.
 */
export async function resolveSafeTarget(url: URL, options: ResolveOptions): Promise<SafeTarget> {
  const param = options.param ?? CUSTOM_HOST_HEADER;
  const hostname = bareHostname(url.hostname);
  const allowlisted = isAllowlisted(hostname, options.allowlist);
  const literal = parseIp(hostname);
  if (literal !== undefined) {
    const range = allowlisted ? undefined : blockedRange(hostname);
    if (range !== undefined) {
      throw blocked(param, `custom host ${hostname} is in a blocked address range (${range})`);
    }
    return { url, hostname, addresses: [{ address: hostname, family: literal.family }], allowlisted };
  }
  if (!allowlisted && isLocalhostName(hostname)) {
    throw blocked(param, `custom host ${hostname} is a localhost name, which always means loopback`);
  }
  const answers = await lookupAll(hostname, options.lookup ?? systemLookup, param);
  const addresses: ResolvedAddress[] = [];
  for (const { address } of answers) {
    const parsed = parseIp(address);
    const range = parsed === undefined || !allowlisted ? blockedRange(address) : undefined;
    if (parsed === undefined || range !== undefined) {
      throw blocked(param, `custom host ${hostname} resolves to ${address} (${range}), which is blocked`);
    }
    if (!addresses.some((a) => a.address === address)) addresses.push({ address, family: parsed.family });
  }
  return { url, hostname, addresses, allowlisted };
}

/** `parseCustomHost` then `resolveSafeTarget`: the one call the proxy needs for a custom host value. */
export async function resolveCustomHost(raw: string, options: ResolveOptions): Promise<SafeTarget> {
  return resolveSafeTarget(parseCustomHost(raw, options), options);
}
