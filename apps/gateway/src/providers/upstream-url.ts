// Upstream URL building shared by every provider: the base (custom host or the provider's own), the
// provider path and the client's query, refusing paths that could climb out of the base path.
import { gatewayError } from '../errors.js';
import type { ProviderRequest } from './types.js';

/**
 * `.` or `..` as a whole segment, raw or percent-encoded: URL parsing would resolve them. An encoded
 * `/` or `\` counts as a separator too: URL parsing keeps `..%2f`, but a provider or proxy that decodes
 * it before resolving dot segments would climb out of the base path (an encoded slash elsewhere, as
 * in a Bedrock ARN model id, is fine).
 */
const DOT_SEGMENT = /(?:^|\/|%2f|%5c)(?:\.|%2e){1,2}(?:\/|%2f|%5c|$)/i;
/** Characters a URL parser would treat as a separator or rewrite (`\` is `/` for http URLs). */
const UNSAFE_PATH_CHARS = /[\\?#\s]/;

function hasControlChar(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** Bases already derived: a checked custom host's URL object is reused for as long as it is cached. */
const customBases = new WeakMap<URL, string>();

/** A custom host as a base: origin plus its path without a trailing slash (query and fragment unused). */
export function customBase(customHost: URL): string {
  let base = customBases.get(customHost);
  if (base === undefined) {
    base = `${customHost.origin}${customHost.pathname.replace(/\/+$/, '')}`;
    customBases.set(customHost, base);
  }
  return base;
}

/** Origin and path prefix of each base seen: a provider's, or a custom host's (bounded). */
const parsedBases = new Map<string, { readonly origin: string; readonly prefix: string }>();
const MAX_PARSED_BASES = 1024;

function parsedBase(base: string): { readonly origin: string; readonly prefix: string } {
  let parsed = parsedBases.get(base);
  if (!parsed) {
    const url = new URL(base);
    parsed = { origin: url.origin, prefix: url.pathname.replace(/\/$/, '') };
    if (parsedBases.size >= MAX_PARSED_BASES) parsedBases.clear();
    parsedBases.set(base, parsed);
  }
  return parsed;
}

/** The custom host when the client gave one, else the provider's own base (no trailing slash). */
export function chooseBase(request: Pick<ProviderRequest, 'customHost'>, ownBase: string): string {
  return request.customHost ? customBase(request.customHost) : ownBase;
}

/** Rejects a client path that is not a plain absolute path (dot segments, `\`, `?`, `#`, controls). */
export function assertSafePath(path: string): void {
  if (
    !path.startsWith('/') ||
    DOT_SEGMENT.test(path) ||
    UNSAFE_PATH_CHARS.test(path) ||
    hasControlChar(path)
  ) {
    throw gatewayError('bad_request', `the request path ${JSON.stringify(path)} cannot be forwarded`, {
      param: 'path',
    });
  }
}

/** A URL joinUrl built and checked, with the parts it came from. */
interface Joined {
  readonly base: string;
  readonly path: string;
  /** `url.href` when built: a URL someone changed since is not handed out again. */
  readonly href: string;
  readonly url: URL;
}

/**
 * URLs already joined, by their text (bounded): `new URL` was one of the largest costs of a
 * request, and a gateway sees the same few endpoints over and over. Callers only read the URL
 * (upstream request options, signing, the Host header); a copy is made where one is changed.
 */
const joined = new Map<string, Joined>();
const MAX_JOINED = 1024;

/**
 * `base + path + search` as a URL. The path is checked first, and the result must keep the base's
 * origin and path prefix: a provider path can only ever add to the base, never replace it.
 */
export function joinUrl(base: string, path: string, search: string): URL {
  const query = search === '' || search.startsWith('?') ? search : `?${search}`;
  const text = `${base}${path}${query}`;
  const seen = joined.get(text);
  // The same base and path (the same text could be cut differently), so the same checks passed.
  if (seen !== undefined && seen.base === base && seen.path === path && seen.url.href === seen.href) {
    return seen.url;
  }
  assertSafePath(path);
  const url = new URL(text);
  const expected = parsedBase(base);
  if (url.origin !== expected.origin || !url.pathname.startsWith(expected.prefix)) {
    throw gatewayError('bad_request', `the request path ${JSON.stringify(path)} cannot be forwarded`, {
      param: 'path',
    });
  }
  if (joined.size >= MAX_JOINED) joined.clear();
  joined.set(text, { base, path, href: url.href, url });
  return url;
}

/** `Authorization: Bearer <token>` when the client gave a provider token, else nothing. */
export function bearer(token: string | undefined): Record<string, string> {
  return token === undefined ? {} : { authorization: `Bearer ${token}` };
}
