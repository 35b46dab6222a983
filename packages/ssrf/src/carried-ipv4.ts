// The IPv4 address an IPv6 address stands for or carries, and CIDR matching on parsed addresses: for
// callers with a policy of their own (the control plane refuses metadata, not private, addresses) that
// must still see `::ffff:a9fe:a9fe` as 169.254.169.254.
import { type ParsedIp, parseIp } from './address-ranges.js';

export interface Cidr {
  readonly family: 4 | 6;
  readonly base: bigint;
  readonly bits: number;
}

/** `'169.254.0.0/16'` -> a Cidr; throws on anything else (ranges are written in code, not read). */
export function parseCidr(text: string): Cidr {
  const [address = '', bits = '', extra] = text.split('/');
  const ip = parseIp(address);
  const n = Number(bits);
  const max = ip?.family === 4 ? 32 : 128;
  if (ip === undefined || extra !== undefined || !/^\d+$/.test(bits) || n > max) {
    throw new Error(`not a CIDR range: ${text}`);
  }
  return { family: ip.family, base: ip.value, bits: n };
}

/** True when `ip` is inside `cidr` (same family only: use carriedIpv4 for IPv4 inside IPv6). */
export function cidrContains(cidr: Cidr, ip: ParsedIp): boolean {
  if (cidr.family !== ip.family) return false;
  const shift = BigInt((ip.family === 4 ? 32 : 128) - cidr.bits);
  return ip.value >> shift === cidr.base >> shift;
}

const low32 = (value: bigint): bigint => value & 0xffffffffn;

/** IPv6 prefixes whose addresses carry an IPv4 address, and where. */
const CARRIERS: readonly { readonly cidr: Cidr; readonly v4: (value: bigint) => bigint }[] = [
  // IPv4-mapped (RFC 4291): a dual-stack socket connects to the IPv4 address itself.
  { cidr: parseCidr('::ffff:0:0/96'), v4: low32 },
  // IPv4-translated (RFC 2765, SIIT).
  { cidr: parseCidr('::ffff:0:0:0/96'), v4: low32 },
  // NAT64 well-known prefix (RFC 6052) and local-use prefix (RFC 8215, /96 sub-prefixes assumed).
  { cidr: parseCidr('64:ff9b::/96'), v4: low32 },
  { cidr: parseCidr('64:ff9b:1::/48'), v4: low32 },
  // 6to4 (RFC 3056): 2002:V4ADDR::/48.
  { cidr: parseCidr('2002::/16'), v4: (value) => (value >> 80n) & 0xffffffffn },
  // IPv4-compatible (deprecated, RFC 4291) last: `::/96`, minus `::` and `::1`, which are IPv6's own.
  { cidr: parseCidr('::/96'), v4: low32 },
];

/**
 * The IPv4 address `ip` is (an IPv4 address) or carries (IPv4-mapped, -translated, -compatible,
 * NAT64, 6to4), or undefined for an IPv6 address that carries none (incl. `::` and `::1`).
 */
export function carriedIpv4(ip: ParsedIp): ParsedIp | undefined {
  if (ip.family === 4) return ip;
  if (ip.value <= 1n) return undefined;
  const carrier = CARRIERS.find((c) => cidrContains(c.cidr, ip));
  return carrier === undefined ? undefined : { family: 4, value: carrier.v4(ip.value) };
}
