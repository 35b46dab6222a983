// The plain pass-through's upstream client: undici connection pools, one per origin and idle limit
// (and, for a checked custom host, per set of checked addresses), kept alive like the node:http
// agents they replace on that path; bodies go both ways through undici's dispatch API (forward.ts).
// undici's client costs less CPU per request than node:http's (docs/decisions.md).
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { LookupFunction } from 'node:net';
import { Pool, util } from 'undici';
import { HOP_BY_HOP, responseHeaderList } from './headers.js';

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

/** The pool for a request to `url`'s origin. */
export function poolFor(url: URL, idleTimeoutMs: number, lookup: LookupFunction | undefined): Pool {
  const key = `${url.protocol}//${url.host} ${idleTimeoutMs}`;
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
    pool = newPool(`${url.protocol}//${url.host}`, idleTimeoutMs, lookup);
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
    if (prev === undefined) {
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

/** `Connection` values that name no header beyond the hop-by-hop set (headers.ts's fast case). */
const PLAIN_CONNECTION: ReadonlySet<string> = new Set(['keep-alive', 'close', 'Keep-Alive', 'Upgrade']);

/**
 * An answer's headers in one pass over undici's raw lines: `headers`, what headersFromRaw gives,
 * and `list`, what responseHeaderList(headers, extra) gives (the flat list writeHead takes), without
 * building the object and walking it again. An answer that repeats a header other than `set-cookie`,
 * or whose `Connection` names other headers (both rare), takes those two steps instead, so the
 * client sees the same headers either way (upstream-pool.test.ts compares them).
 */
export function answerHeaders(
  raw: readonly Buffer[],
  extra: Readonly<Record<string, string>>,
): { headers: IncomingHttpHeaders; list: (string | string[])[] } {
  const headers: IncomingHttpHeaders = {};
  const list: (string | string[])[] = [];
  for (const name in extra) list.push(name, extra[name] as string);
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = util.headerNameToString(raw[i] as Buffer);
    const value = (raw[i + 1] as Buffer).toString('latin1');
    const prev = headers[name];
    if (prev !== undefined) {
      // The list holds the same array: a cookie added here is in it too.
      if (name === 'set-cookie') (prev as string[]).push(value);
      else return twoSteps(raw, extra);
      continue;
    }
    if (HOP_BY_HOP.has(name)) {
      if (name === 'connection' && !PLAIN_CONNECTION.has(value)) return twoSteps(raw, extra);
      headers[name] = value;
      continue;
    }
    const stored = name === 'set-cookie' ? [value] : value;
    headers[name] = stored;
    if (!Object.hasOwn(extra, name)) list.push(name, stored);
  }
  return { headers, list };
}

function twoSteps(
  raw: readonly Buffer[],
  extra: Readonly<Record<string, string>>,
): { headers: IncomingHttpHeaders; list: (string | string[])[] } {
  const headers = headersFromRaw(raw);
  return { headers, list: responseHeaderList(headers, extra) };
}
