// Syntax of a custom host (`x-service-custom-host` or a config's `custom_host`): a plain http(s) base
// URL. Address checks happen later, in resolve.ts, once alternate IPv4 spellings are normalised here.
import type { AppError } from '@aigw/runtime';
import { parseIp } from './address-ranges.js';
import { CUSTOM_HOST_HEADER, ssrfError } from './errors.js';
import { isHostName } from './host-key.js';

export const MAX_CUSTOM_HOST_LENGTH = 2048;
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;

export interface CustomHostOptions {
  /** The header or config field the value came from, reported as the error's `param`. */
  param?: string;
}

function blocked(param: string, reason: string): AppError {
  return ssrfError('custom_host_blocked', `custom host ${reason}`, { param });
}

/** Everything between `scheme://` and the first `/`, `?` or `#`, read from the raw string. */
function rawAuthority(raw: string, schemeLength: number): string {
  const rest = raw.slice(schemeLength + 3);
  const end = rest.search(/[/?#]/);
  return end === -1 ? rest : rest.slice(0, end);
}

/**
 * Validates a custom host and returns it normalised: lower-case host, alternate IPv4 spellings
 * (`2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`) rewritten to dotted-quad, one trailing dot
 * removed, base path kept (`https://host/v1` stays `/v1`). Throws `custom_host_blocked`.
 */
export function parseCustomHost(raw: string, options: CustomHostOptions = {}): URL {
  const param = options.param ?? CUSTOM_HOST_HEADER;
  if (typeof raw !== 'string' || raw.length === 0) throw blocked(param, 'is empty');
  if (raw.length > MAX_CUSTOM_HOST_LENGTH) {
    throw blocked(param, `is longer than ${MAX_CUSTOM_HOST_LENGTH} characters`);
  }
  // Printable ASCII only: no whitespace, control characters or Unicode look-alikes (`127。0。0。1`).
  if (!/^[\x21-\x7e]+$/.test(raw)) {
    throw blocked(param, 'must be printable ASCII without whitespace (use punycode for IDNs)');
  }
  // WHATWG URL reads `\` as `/` in http(s) URLs, so `a\@b` means different hosts to different parsers.
  if (raw.includes('\\')) throw blocked(param, 'must not contain a backslash');
  const scheme = SCHEME.exec(raw)?.[1]?.toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') {
    throw blocked(param, `must be an http:// or https:// URL${scheme ? ` (not ${scheme}:)` : ''}`);
  }
  if (raw.slice(scheme.length + 1, scheme.length + 3) !== '//') {
    throw blocked(param, `must start with ${scheme}://`);
  }
  const authority = rawAuthority(raw, scheme.length);
  // WHATWG URL skips extra slashes (`http:///x` is host `x`); other parsers read an empty host.
  if (authority === '') throw blocked(param, 'has no host');
  if (authority.includes('@')) throw blocked(param, 'must not contain credentials (user:pass@)');
  if (authority.includes('%')) throw blocked(param, 'must not percent-encode its host');
  if (raw.includes('#')) throw blocked(param, 'must not contain a fragment (#)');
  if (raw.includes('?')) throw blocked(param, 'must not contain a query string (?)');

  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw blocked(param, 'is not a valid URL');
  }
  if (url.username !== '' || url.password !== '') {
    throw blocked(param, 'must not contain credentials (user:pass@)');
  }
  if (url.port === '0') throw blocked(param, 'must not use port 0');
  if (url.hostname.endsWith('.')) url.hostname = url.hostname.slice(0, -1);
  if (!isValidHost(url.hostname)) throw blocked(param, 'does not have a valid host name');
  return url;
}

function isValidHost(hostname: string): boolean {
  // WHATWG URL has already validated and compressed IPv6 literals, and rewritten IPv4 ones.
  if (hostname.startsWith('[')) return true;
  if (parseIp(hostname)?.family === 4) return true;
  return isHostName(hostname);
}
