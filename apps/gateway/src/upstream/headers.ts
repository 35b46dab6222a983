// Which headers cross the gateway: hop-by-hop and x-service-* never do; provider auth is converted;
// headers the client lists in x-service-forward-headers pass exactly as sent.
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { util } from 'undici';
import type { UpstreamTarget } from '../providers/types.js';
import { SERVICE_HEADER_PREFIX } from '../request/service-headers.js';

/** RFC 9110 7.6.1 connection-specific headers, plus the ones proxies must not forward. */
export const HOP_BY_HOP: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'http2-settings',
]);

/** `Connection` values that name no header beyond the hop-by-hop set. */
const PLAIN_CONNECTION: ReadonlySet<string> = new Set(['keep-alive', 'close', 'Keep-Alive', 'Upgrade']);

/** Header names listed in `Connection` are hop-by-hop for this message too. */
function connectionTokens(headers: IncomingHttpHeaders): Set<string> | undefined {
  const value = headers.connection;
  // The usual values name no header beyond the hop-by-hop set: skip building a set per message.
  if (!value || PLAIN_CONNECTION.has(value)) return undefined;
  return new Set(value.split(',').map((t) => t.trim().toLowerCase()));
}

/** Client headers a provider may see: without hop-by-hop, Host and `x-service-*` headers. */
export function clientHeadersForProvider(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const listed = connectionTokens(headers);
  const out: IncomingHttpHeaders = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || HOP_BY_HOP.has(name) || name === 'host' || listed?.has(name)) continue;
    if (name.startsWith(SERVICE_HEADER_PREFIX)) continue;
    out[name] = value;
  }
  return out;
}

/**
 * The headers sent upstream: client headers, minus removals, plus the provider's own. `client`
 * must be a fresh object (from clientHeadersForProvider): it is completed in place.
 */
export function upstreamHeaders(
  client: IncomingHttpHeaders,
  target: UpstreamTarget,
  forwarded: readonly string[],
): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = client;
  for (const name of target.removeHeaders) if (!forwarded.includes(name)) delete out[name];
  for (const name in target.setHeaders) {
    if (!forwarded.includes(name)) out[name] = target.setHeaders[name];
  }
  out.host = target.url.host;
  return out;
}

/**
 * Response headers for the client: the provider's, minus hop-by-hop ones, with `extra` first and
 * winning (the order and values `setHeader(extra)` followed by `writeHead(status, provider's)` give,
 * built as one object so that writeHead takes its fast path).
 */
export function responseHeaders(
  headers: IncomingHttpHeaders,
  extra: Readonly<Record<string, string>> = {},
): OutgoingHttpHeaders {
  const listed = connectionTokens(headers);
  const out: OutgoingHttpHeaders = {};
  for (const name in extra) out[name] = extra[name];
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || HOP_BY_HOP.has(name) || listed?.has(name)) continue;
    out[name] = value;
  }
  for (const name in extra) out[name] = extra[name];
  return out;
}

/**
 * responseHeaders() as the flat `[name, value, ...]` list writeHead also takes: the same names, in
 * the same order, with the same values (`extra` first, a provider header of the same name left
 * out), written by node as they come instead of through an object built and walked per response.
 */
export function responseHeaderList(
  headers: IncomingHttpHeaders,
  extra: Readonly<Record<string, string>>,
): (string | string[])[] {
  const listed = connectionTokens(headers);
  const out: (string | string[])[] = [];
  for (const name in extra) out.push(name, extra[name] as string);
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || HOP_BY_HOP.has(name) || listed?.has(name) || Object.hasOwn(extra, name))
      continue;
    out.push(name, value);
  }
  return out;
}

/**
 * The answer's head for the client straight from undici's raw lines, as responseHeaderList() of
 * headersFromRaw() would give it when every name comes once (`extra` first, hop-by-hop lines and
 * the provider's lines of an `extra` name left out), and its content type: no header object built
 * and walked per answer. Undefined when a name repeats or `Connection` names other headers: those
 * answers take headersFromRaw's node:http rules.
 */
export function rawResponseHeaderList(
  raw: readonly Buffer[],
  extra: Readonly<Record<string, string>>,
): { readonly list: string[]; readonly contentType: string | undefined } | undefined {
  const list: string[] = [];
  for (const name in extra) list.push(name, extra[name] as string);
  const first = list.length;
  let contentType: string | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = util.headerNameToString(raw[i] as Buffer);
    // Names from undici's table are the same string objects: a repeat is found by comparing them.
    for (let j = first; j < list.length; j += 2) if (list[j] === name) return undefined;
    const value = (raw[i + 1] as Buffer).toString('latin1');
    if (HOP_BY_HOP.has(name)) {
      if (name === 'connection' && !PLAIN_CONNECTION.has(value)) return undefined;
      continue;
    }
    if (Object.hasOwn(extra, name)) continue;
    if (name === 'content-type') contentType = value;
    list.push(name, value);
  }
  return { list, contentType };
}
