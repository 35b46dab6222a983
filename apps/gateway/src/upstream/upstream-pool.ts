// The plain pass-through's upstream client: undici connection pools, one per origin and idle limit
// (and, for a checked custom host, per set of checked addresses), kept alive like the node:http
// agents they replace on that path; bodies go both ways through undici's dispatch API (forward.ts).
// undici's client costs less CPU per request than node:http's (docs/decisions.md).
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { LookupFunction } from 'node:net';
import { Pool, util } from 'undici';

const pools = new Map<string, Pool>();
// A custom host's pool connects through its checked addresses only: one pool per pinned lookup
// (a fresh check makes a new lookup, and its pool; the old one goes with its lookup, its idle
// sockets closing at the idle limit).
const pinnedPools = new WeakMap<LookupFunction, Map<string, Pool>>();

function newPool(origin: string, idleTimeoutMs: number, lookup: LookupFunction | undefined): Pool {
  return new Pool(origin, {
    // As many connections as requests in flight, as the node:http agent allowed.
    connections: null,
    // The idle limit covers every wait: the connect, the head, each gap in the body, and how long
    // an idle connection is kept (a provider's `Keep-Alive: timeout=N` hint still shortens it).
    headersTimeout: idleTimeoutMs,
    bodyTimeout: idleTimeoutMs,
    keepAliveTimeout: idleTimeoutMs,
    keepAliveMaxTimeout: idleTimeoutMs,
    connect: {
      timeout: idleTimeoutMs,
      keepAliveInitialDelay: 10_000,
      ...(lookup ? { lookup } : {}),
    },
  });
}

/** What the exchange reads of a URL: its origin, and the path and query it asks for. */
export interface UrlParts {
  readonly origin: string;
  readonly path: string;
  /** The URL's href when read: a URL changed since is read again. */
  readonly href: string;
}

/** The parts of the URLs seen (a URL's getters build new strings on every read). */
const parts = new WeakMap<URL, UrlParts>();

/**
 * `protocol//host` and `pathname + search` of `url`, read once per URL object and text:
 * providers/upstream-url.ts hands out the same URL objects again.
 */
export function urlParts(url: URL): UrlParts {
  let known = parts.get(url);
  if (known === undefined || known.href !== url.href) {
    known = { origin: `${url.protocol}//${url.host}`, path: `${url.pathname}${url.search}`, href: url.href };
    parts.set(url, known);
  }
  return known;
}

/** The pool for a request to `url`'s origin. */
export function poolFor(url: URL, idleTimeoutMs: number, lookup: LookupFunction | undefined): Pool {
  const origin = urlParts(url).origin;
  const key = `${origin} ${idleTimeoutMs}`;
  let byKey = pools;
  if (lookup) {
    let pinned = pinnedPools.get(lookup);
    if (!pinned) {
      pinned = new Map();
      pinnedPools.set(lookup, pinned);
    }
    byKey = pinned;
  }
  let pool = byKey.get(key);
  if (!pool) {
    pool = newPool(origin, idleTimeoutMs, lookup);
    byKey.set(key, pool);
  }
  return pool;
}

// Header names whose repeats node:http drops (lib/_http_incoming.js matchKnownFields): the
// client saw the first value only, and still does.
const FIRST_ONLY: ReadonlySet<string> = new Set([
  'content-type',
  'content-length',
  'user-agent',
  'referer',
  'host',
  'authorization',
  'proxy-authorization',
  'if-modified-since',
  'if-unmodified-since',
  'from',
  'location',
  'max-forwards',
  'retry-after',
  'etag',
  'last-modified',
  'server',
  'age',
  'expires',
]);

/**
 * An answer's raw header lines as node:http's `IncomingMessage.headers`: lower-case names,
 * `set-cookie` an array, repeats joined with ', ' ('; ' for cookie) or dropped as node does, so
 * what the client receives is what it received through node:http.
 */
export function headersFromRaw(raw: readonly Buffer[]): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    // Known names come from undici's table of lower-case names, without decoding the bytes.
    const name = util.headerNameToString(raw[i] as Buffer);
    const value = (raw[i + 1] as Buffer).toString('latin1');
    const prev = out[name];
    // `prev` may come from Object.prototype (`constructor`): only an own value is an earlier line.
    if (prev === undefined || !Object.hasOwn(out, name)) {
      if (name === 'set-cookie') out[name] = [value];
      else out[name] = value;
    } else if (name === 'set-cookie') {
      (prev as string[]).push(value);
    } else if (!FIRST_ONLY.has(name)) {
      out[name] = `${prev as string}${name === 'cookie' ? '; ' : ', '}${value}`;
    }
  }
  return out;
}

/**
 * The request headers as undici takes them: `expect` dropped (undici refuses it; node:http
 * answered the client's 100-continue already), and for a body the gateway holds, a declared
 * length that differs from it (undici sends the body's own length). A copy only when one is there.
 */
export function dispatchHeaders(
  headers: OutgoingHttpHeaders,
  /** The body the gateway holds, null for none, undefined for one that streams (its length stays). */
  body: Buffer | null | undefined,
): OutgoingHttpHeaders {
  const length = headers['content-length'];
  const staleLength =
    length !== undefined &&
    body !== undefined &&
    (body === null ? String(length) !== '0' : Number(length) !== body.length);
  if (headers.expect === undefined && !staleLength) return headers;
  const out: OutgoingHttpHeaders = { ...headers };
  delete out.expect;
  if (staleLength) delete out['content-length'];
  return out;
}
