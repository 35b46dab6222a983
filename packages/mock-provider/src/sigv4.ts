// AWS Signature Version 4 primitives (canonical request, signing key) and a request signer for tests.
import { createHash, createHmac } from 'node:crypto';
import type { AwsCredentials } from './types.js';

export const SIGV4_ALGORITHM = 'AWS4-HMAC-SHA256';

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

/** RFC 3986 escaping as AWS wants it (encodeURIComponent leaves !'()* alone). */
export function awsUriEscape(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/**
 * Canonical URI for every service but S3: the path as sent (already percent-encoded) with dot segments
 * removed, then escaped once more, which is why `%3A` in a Bedrock model id is signed as `%253A`.
 */
export function canonicalPath(rawPath: string): string {
  const segments: string[] = [];
  for (const segment of rawPath.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  const trailing = segments.length > 0 && rawPath.endsWith('/') ? '/' : '';
  const normalized = `/${segments.join('/')}${trailing}`;
  return awsUriEscape(normalized).replace(/%2F/g, '/');
}

/** Canonical query string from the raw query (without `?`), sorted by key then value. */
export function canonicalQuery(rawQuery: string): string {
  const pairs: Array<[string, string]> = [];
  for (const piece of rawQuery.split('&')) {
    if (piece === '') continue;
    const eq = piece.indexOf('=');
    const key = decodeURIComponent(eq < 0 ? piece : piece.slice(0, eq));
    const value = eq < 0 ? '' : decodeURIComponent(piece.slice(eq + 1));
    if (key === 'X-Amz-Signature') continue;
    pairs.push([awsUriEscape(key), awsUriEscape(value)]);
  }
  pairs.sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  return pairs.map(([k, v]) => `${k}=${v}`).join('&');
}

export interface CanonicalRequestInput {
  method: string;
  /** Path as sent on the wire (percent-encoded). */
  rawPath: string;
  /** Query as sent on the wire, without `?`. */
  rawQuery: string;
  /** Lower-case header names; repeated headers already joined with `,`. */
  headers: Readonly<Record<string, string | undefined>>;
  signedHeaders: readonly string[];
  payloadHash: string;
}

export function canonicalRequest(input: CanonicalRequestInput): string {
  const names = [...input.signedHeaders].sort();
  const headerLines = names.map(
    (name) => `${name}:${(input.headers[name] ?? '').trim().replace(/\s+/g, ' ')}\n`,
  );
  return [
    input.method.toUpperCase(),
    canonicalPath(input.rawPath),
    canonicalQuery(input.rawQuery),
    headerLines.join(''),
    names.join(';'),
    input.payloadHash,
  ].join('\n');
}

export function credentialScope(date: string, region: string, service: string): string {
  return `${date}/${region}/${service}/aws4_request`;
}

export function stringToSign(amzDate: string, scope: string, canonical: string): string {
  return [SIGV4_ALGORITHM, amzDate, scope, sha256Hex(canonical)].join('\n');
}

export function signature(
  secret: string,
  date: string,
  region: string,
  service: string,
  toSign: string,
): string {
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
  return createHmac('sha256', key).update(toSign).digest('hex');
}

/** `20240102T030405Z` for a date. */
export function amzDate(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

export interface SignAwsRequestInput {
  method: string;
  url: string | URL;
  /** Headers to send and sign (host, x-amz-date and the token are added). */
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  region: string;
  /** Signing service name (default `bedrock`). */
  service?: string;
  credentials: AwsCredentials;
  /** Signing time (default now). */
  date?: Date;
  /** Also send and sign `x-amz-content-sha256` (the Bedrock SDK does not by default). */
  contentSha256Header?: boolean;
}

/** Sign a request; returns every header to send, `authorization` included (all headers are signed). */
export function signAwsRequest(input: SignAwsRequestInput): Record<string, string> {
  const url = typeof input.url === 'string' ? new URL(input.url) : input.url;
  const service = input.service ?? 'bedrock';
  const stamp = amzDate(input.date ?? new Date());
  const payloadHash = sha256Hex(input.body ?? '');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers ?? {})) headers[name.toLowerCase()] = value;
  headers.host = url.host;
  headers['x-amz-date'] = stamp;
  if (input.credentials.sessionToken) headers['x-amz-security-token'] = input.credentials.sessionToken;
  if (input.contentSha256Header) headers['x-amz-content-sha256'] = payloadHash;
  delete headers.authorization;
  const signedHeaders = Object.keys(headers).sort();
  const canonical = canonicalRequest({
    method: input.method,
    rawPath: url.pathname,
    rawQuery: url.search.replace(/^\?/, ''),
    headers,
    signedHeaders,
    payloadHash,
  });
  const scope = credentialScope(stamp.slice(0, 8), input.region, service);
  const sig = signature(
    input.credentials.secretAccessKey,
    stamp.slice(0, 8),
    input.region,
    service,
    stringToSign(stamp, scope, canonical),
  );
  headers.authorization = `${SIGV4_ALGORITHM} Credential=${input.credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders.join(';')}, Signature=${sig}`;
  return headers;
}
