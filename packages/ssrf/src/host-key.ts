// One comparable form per host, so the allowlist and the pinned connection agree on what "the same
// host" means: lower-cased, no IPv6 brackets, no trailing dot, and IP literals compared by value.
import { parseIp } from './address-ranges.js';

const MAX_HOSTNAME_LENGTH = 253;
// Underscores are not legal in host names but appear in container service names; the address
// check, not the spelling, is what keeps a name safe.
const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/** A lower-case DNS name: dot-separated labels of letters, digits, `-` and `_`, at most 253 long. */
export function isHostName(name: string): boolean {
  if (name.length === 0 || name.length > MAX_HOSTNAME_LENGTH) return false;
  return name.split('.').every((label) => LABEL.test(label));
}

/** `[::1]` -> `::1`, `LocalHost.` -> `localhost`. */
export function bareHostname(host: string): string {
  const unbracketed = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const lower = unbracketed.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

/** Equal for two spellings of the same host: `::1` and `0:0::1`, `Example.com.` and `example.com`. */
export function hostKey(host: string): string {
  const bare = bareHostname(host);
  const ip = parseIp(bare);
  return ip === undefined ? `name:${bare}` : `ip${ip.family}:${ip.value.toString(16)}`;
}

/** RFC 6761: `localhost` and every name below it are loopback, whatever DNS says. */
export function isLocalhostName(hostname: string): boolean {
  const bare = bareHostname(hostname);
  return bare === 'localhost' || bare.endsWith('.localhost');
}
