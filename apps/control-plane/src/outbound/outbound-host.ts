// Hosts the control plane itself calls on an organisation's say-so (secret managers, MCP servers and
// their token endpoints): never a cloud metadata endpoint, which would hand out the control plane's
// own cloud credentials, and never "this host" (0.0.0.0, `::`). Private addresses stay allowed: those
// services usually run inside the network. (Provider hosts are checked by the gateways' SSRF layer,
// which the control plane never calls.) Addresses are judged by value with @aigw/ssrf's parser, so an
// IPv4 address carried in IPv6 (`[::ffff:a9fe:a9fe]`, NAT64 `64:ff9b::a9fe:a9fe`) is judged as the
// IPv4 it carries; the checked addresses are the only ones a connection may use (outbound-fetch.ts).
import {
  bareHostname,
  carriedIpv4,
  cidrContains,
  type LookupFn,
  type ParsedIp,
  type PinnedTarget,
  parseCidr,
  parseIp,
  type ResolvedAddress,
  systemLookup,
} from '@aigw/ssrf';

export type { LookupFn, PinnedTarget };

const refused = (ranges: readonly (readonly [string, string])[]) =>
  ranges.map(([cidr, name]) => ({ cidr: parseCidr(cidr), name }));

const REFUSED_V4 = refused([
  // Connecting to 0.0.0.0 reaches the local host on Linux: the control plane's own ports.
  ['0.0.0.0/8', '"this host" 0.0.0.0/8'],
  // AWS, GCP, Azure, OCI metadata (169.254.169.254), ECS task credentials (169.254.170.2), etc.
  ['169.254.0.0/16', 'link-local 169.254.0.0/16 (cloud metadata)'],
  // Alibaba Cloud's metadata service sits in carrier-grade NAT space, not link-local.
  ['100.100.100.200/32', 'cloud metadata 100.100.100.200 (Alibaba Cloud)'],
]);

const REFUSED_V6 = refused([
  ['::/128', 'unspecified :: ("this host")'],
  ['fe80::/10', 'link-local fe80::/10'],
  ['fd00:ec2::254/128', 'cloud metadata fd00:ec2::254 (AWS)'],
]);

function v4Text(ip: ParsedIp): string {
  return [24n, 16n, 8n, 0n].map((shift) => Number((ip.value >> shift) & 0xffn)).join('.');
}

/**
 * Why the control plane may not connect to `address`, or undefined when it may. An IPv6 address that
 * carries an IPv4 one (mapped, compatible, translated, NAT64, 6to4) is refused when that IPv4 is.
 */
export function refusedRange(address: string): string | undefined {
  const ip = parseIp(address);
  if (ip === undefined) return 'not an IP address';
  const own = (ip.family === 4 ? REFUSED_V4 : REFUSED_V6).find((r) => cidrContains(r.cidr, ip));
  if (own !== undefined) return own.name;
  const v4 = ip.family === 6 ? carriedIpv4(ip) : undefined;
  const carried = v4 === undefined ? undefined : REFUSED_V4.find((r) => cidrContains(r.cidr, v4));
  return carried === undefined || v4 === undefined ? undefined : `${v4Text(v4)} in IPv6, ${carried.name}`;
}

/** The host is (or resolves to) an address the control plane never calls. */
export class MetadataHostError extends Error {}

/** The host name could not be resolved (the cause is the resolver's error). */
export class HostResolutionError extends Error {}

/**
 * Resolves `url`'s host once and checks every address (one refused address refuses the host: a
 * rebinding name must not win by racing its records). Returns the host and the checked addresses,
 * which are all a pinned connection may use. Throws MetadataHostError or HostResolutionError.
 */
export async function checkOutboundHost(url: URL, lookup: LookupFn = systemLookup): Promise<PinnedTarget> {
  const hostname = bareHostname(url.hostname);
  const literal = parseIp(hostname);
  if (literal !== undefined) {
    const range = refusedRange(hostname);
    if (range !== undefined) throw new MetadataHostError(`${url.host} is ${range}: refused`);
    return { hostname, addresses: [{ address: hostname, family: literal.family }] };
  }
  let answers: Awaited<ReturnType<LookupFn>>;
  try {
    answers = await lookup(hostname);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException | undefined)?.code ?? 'lookup failed';
    throw new HostResolutionError(`${url.host} could not be resolved (${code})`, { cause: err });
  }
  if (answers.length === 0) throw new HostResolutionError(`${url.host} resolved to no addresses`);
  const addresses: ResolvedAddress[] = [];
  for (const { address } of answers) {
    const parsed = parseIp(address);
    const range = refusedRange(address);
    if (parsed === undefined || range !== undefined) {
      throw new MetadataHostError(`${url.host} resolves to ${address}, ${range}: refused`);
    }
    if (!addresses.some((a) => a.address === address)) addresses.push({ address, family: parsed.family });
  }
  return { hostname, addresses };
}
