// The gateway's AWS Signature Version 4 signer (header signing, non-S3 rules): a pure function of the
// request, the credentials and the clock, so Bedrock targets can be golden-tested.
import { createHash, createHmac } from 'node:crypto';

export const SIGV4_ALGORITHM = 'AWS4-HMAC-SHA256';

export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string | undefined;
}

export interface SigV4Input {
  readonly method: string;
  /** Path exactly as it goes on the wire (a URL's `pathname`, so already percent-encoded). */
  readonly path: string;
  /** Query as it goes on the wire, with or without the leading `?`. */
  readonly query: string;
  /** Headers to sign besides the ones the signer adds; names in any case. `host` is required. */
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
  /** The body bytes (hashed here) or nothing for an empty body. */
  readonly body?: string | Uint8Array | undefined;
  readonly region: string;
  readonly service: string;
  readonly credentials: AwsCredentials;
  readonly date: Date;
  /** Also send and sign `x-amz-content-sha256` (Bedrock accepts it; the AWS test suite does not use it). */
  readonly contentSha256Header?: boolean;
}

export interface SigV4Result {
  /** Headers to add to the request: `x-amz-date`, the optional token and body hash, `authorization`. */
  readonly headers: Readonly<Record<string, string>>;
  readonly canonicalRequest: string;
  readonly stringToSign: string;
  readonly signature: string;
  readonly signedHeaders: string;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

/** RFC 3986 percent-encoding: everything but `A-Z a-z 0-9 - . _ ~`, upper-case hex. */
export function rfc3986(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/**
 * Canonical URI for every service but S3: the wire path normalized (empty and `.` segments dropped,
 * `..` resolved), then each segment encoded once more. An encoded `:` in a Bedrock model id (`%3A`)
 * is therefore signed as `%253A`, which is what AWS computes on its side.
 */
export function canonicalUri(path: string): string {
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  if (segments.length === 0) return '/';
  const trailing = path.endsWith('/') ? '/' : '';
  return `/${segments.map(rfc3986).join('/')}${trailing}`;
}

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** Canonical query: every pair decoded, RFC 3986 re-encoded, sorted by name then value (code units). */
export function canonicalQuery(query: string): string {
  const raw = query.startsWith('?') ? query.slice(1) : query;
  const pairs: Array<readonly [string, string]> = [];
  for (const piece of raw.split('&')) {
    if (piece === '') continue;
    const eq = piece.indexOf('=');
    const name = eq < 0 ? piece : piece.slice(0, eq);
    const value = eq < 0 ? '' : piece.slice(eq + 1);
    pairs.push([rfc3986(decode(name)), rfc3986(decode(value))]);
  }
  pairs.sort(([an, av], [bn, bv]) => (an === bn ? compare(av, bv) : compare(an, bn)));
  return pairs.map(([name, value]) => `${name}=${value}`).join('&');
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Header value as signed: repeated values joined by `,`, each trimmed, inner runs of spaces collapsed. */
function canonicalHeaderValue(value: string | readonly string[]): string {
  const values = typeof value === 'string' ? [value] : value;
  return values.map((v) => v.trim().replace(/\s+/g, ' ')).join(',');
}

/** `20150830T123600Z` for a date. */
export function amzDate(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

export function signingKey(secret: string, day: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), service), 'aws4_request');
}

export function signSigV4(input: SigV4Input): SigV4Result {
  const stamp = amzDate(input.date);
  const day = stamp.slice(0, 8);
  const payloadHash = sha256Hex(input.body ?? '');

  const added: Record<string, string> = { 'x-amz-date': stamp };
  if (input.credentials.sessionToken) added['x-amz-security-token'] = input.credentials.sessionToken;
  if (input.contentSha256Header) added['x-amz-content-sha256'] = payloadHash;

  const signed = new Map<string, string>();
  for (const [name, value] of Object.entries(input.headers)) {
    const key = name.toLowerCase();
    if (key === 'authorization') continue;
    signed.set(key, canonicalHeaderValue(value));
  }
  for (const [name, value] of Object.entries(added)) signed.set(name, value);
  if (!signed.has('host')) throw new Error('SigV4: the host header must be signed');

  const names = [...signed.keys()].sort(compare);
  const signedHeaders = names.join(';');
  const canonicalRequest = [
    input.method.toUpperCase(),
    canonicalUri(input.path),
    canonicalQuery(input.query),
    names.map((name) => `${name}:${signed.get(name)}\n`).join(''),
    signedHeaders,
    payloadHash,
  ].join('\n');
  const scope = `${day}/${input.region}/${input.service}/aws4_request`;
  const stringToSign = [SIGV4_ALGORITHM, stamp, scope, sha256Hex(canonicalRequest)].join('\n');
  const signature = createHmac(
    'sha256',
    signingKey(input.credentials.secretAccessKey, day, input.region, input.service),
  )
    .update(stringToSign, 'utf8')
    .digest('hex');
  const authorization = `${SIGV4_ALGORITHM} Credential=${input.credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return {
    headers: { ...added, authorization },
    canonicalRequest,
    stringToSign,
    signature,
    signedHeaders,
  };
}
