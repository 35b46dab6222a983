// Which IP addresses a custom host may never reach: the IANA special-purpose ranges (IPv4 and IPv6),
// with IPv4 carried inside IPv6 (mapped, NAT64) judged by the IPv4 address it carries.
import { isIP } from 'node:net';

export interface ParsedIp {
  readonly family: 4 | 6;
  /** The address as an unsigned integer (32 or 128 bits). */
  readonly value: bigint;
}

/**
 * Parses a canonical IP literal (what `net.isIP` accepts: dotted-quad IPv4 without leading zeros, any
 * IPv6 form incl. an embedded IPv4 tail and a `%zone` suffix, which is dropped). No brackets.
 */
export function parseIp(text: string): ParsedIp | undefined {
  const family = isIP(text);
  if (family === 4) return { family: 4, value: parseV4(text) };
  if (family === 6) return { family: 6, value: parseV6(text.split('%', 1)[0] ?? '') };
  return undefined;
}

function parseV4(text: string): bigint {
  return text.split('.').reduce((acc, octet) => (acc << 8n) | BigInt(Number(octet)), 0n);
}

function parseV6(text: string): bigint {
  let groups = text;
  const lastColon = groups.lastIndexOf(':');
  const tail = groups.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseV4(tail);
    groups = `${groups.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = '', rest] = groups.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = rest === undefined || rest === '' ? [] : rest.split(':');
  const zeros: string[] = Array.from({ length: 8 - left.length - right.length }, () => '0');
  const all = rest === undefined ? left : [...left, ...zeros, ...right];
  return all.reduce((acc, group) => (acc << 16n) | BigInt(Number.parseInt(group, 16)), 0n);
}

interface Range {
  readonly family: 4 | 6;
  readonly base: bigint;
  readonly bits: number;
  readonly name: string;
  /** Where the range carries an IPv4 address that decides instead of the range itself. */
  readonly embeddedV4?: (value: bigint) => bigint;
}

function range(cidr: string, name: string, embeddedV4?: (value: bigint) => bigint): Range {
  const [address = '', bits = ''] = cidr.split('/');
  const parsed = parseIp(address);
  if (!parsed) throw new Error(`bad range ${cidr}`);
  const base = { family: parsed.family, base: parsed.value, bits: Number(bits), name: `${name} ${cidr}` };
  return embeddedV4 ? { ...base, embeddedV4 } : base;
}

const low32 = (value: bigint): bigint => value & 0xffffffffn;

// Most specific first, so the name in an error is the most precise one.
const RANGES: readonly Range[] = [
  range('0.0.0.0/8', '"this network"'),
  range('10.0.0.0/8', 'private'),
  range('100.64.0.0/10', 'carrier-grade NAT (incl. Alibaba metadata 100.100.100.200)'),
  range('100.100.100.200/32', 'cloud metadata service'),
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link-local'),
  range('169.254.169.254/32', 'cloud metadata service'),
  range('169.254.170.2/32', 'container credentials service'),
  range('172.16.0.0/12', 'private'),
  range('192.0.0.0/24', 'IETF protocol assignments'),
  range('192.0.2.0/24', 'documentation (TEST-NET-1)'),
  range('192.31.196.0/24', 'AS112'),
  range('192.52.193.0/24', 'AMT'),
  range('192.88.99.0/24', '6to4 relay anycast'),
  range('192.168.0.0/16', 'private'),
  range('192.175.48.0/24', 'AS112'),
  range('198.18.0.0/15', 'benchmarking'),
  range('198.51.100.0/24', 'documentation (TEST-NET-2)'),
  range('203.0.113.0/24', 'documentation (TEST-NET-3)'),
  range('224.0.0.0/4', 'multicast'),
  range('240.0.0.0/4', 'reserved'),
  range('255.255.255.255/32', 'broadcast'),
  range('::/128', 'unspecified'),
  range('::1/128', 'loopback'),
  range('::/96', 'IPv4-compatible (deprecated)'),
  range('::ffff:0:0/96', 'IPv4-mapped', low32),
  range('::ffff:0:0:0/96', 'IPv4-translated'),
  range('64:ff9b::/96', 'NAT64', low32),
  // Local-use NAT64 (RFC 8215) is not globally reachable, whatever IPv4 it carries.
  range('64:ff9b:1::/48', 'local-use NAT64'),
  range('100::/64', 'discard-only'),
  range('2001::/23', 'IETF protocol assignments'),
  range('2001::/32', 'Teredo'),
  range('2001:db8::/32', 'documentation'),
  // 6to4 is deprecated (RFC 7526) and reaches whatever IPv4 it carries through an unknown relay.
  range('2002::/16', '6to4'),
  range('3fff::/20', 'documentation'),
  range('5f00::/16', 'segment routing'),
  range('fc00::/7', 'unique local'),
  range('fd00:ec2::254/128', 'cloud metadata service'),
  range('fe80::/10', 'link-local'),
  range('fec0::/10', 'site-local (deprecated)'),
  range('ff00::/8', 'multicast'),
].sort((a, b) => b.bits - a.bits);

// Everything outside 2000::/3 that no range above names is not global unicast either.
const GLOBAL_UNICAST_V6 = range('2000::/3', 'global unicast');

function contains(r: Range, ip: ParsedIp): boolean {
  if (r.family !== ip.family) return false;
  const shift = BigInt((ip.family === 4 ? 32 : 128) - r.bits);
  return ip.value >> shift === r.base >> shift;
}

function v4Text(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => Number((value >> s) & 0xffn)).join('.');
}

function classify(ip: ParsedIp): string | undefined {
  const match = RANGES.find((r) => contains(r, ip));
  if (match?.embeddedV4) {
    const v4 = match.embeddedV4(ip.value);
    const inner = classify({ family: 4, value: v4 });
    return inner === undefined ? undefined : `${match.name} of ${v4Text(v4)}, ${inner}`;
  }
  if (match) return match.name;
  if (ip.family === 6 && !contains(GLOBAL_UNICAST_V6, ip)) return 'not global unicast (outside 2000::/3)';
  return undefined;
}

/**
 * The blocked range `ip` falls in, e.g. `"loopback 127.0.0.0/8"`, or undefined for a public address.
 * Anything that is not an IP literal counts as blocked, so a caller can never mistake garbage for public.
 */
export function blockedRange(ip: string): string | undefined {
  const parsed = parseIp(ip);
  return parsed === undefined ? 'not an IP address' : classify(parsed);
}

export function isBlockedAddress(ip: string): boolean {
  return blockedRange(ip) !== undefined;
}
