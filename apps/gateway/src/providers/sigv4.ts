// The gateway's AWS Signature Version 4 signing (header signing, non-S3 rules), done by the AWS SDK's
// own signer (@smithy/signature-v4 with the node:crypto hash of @smithy/hash-node): this module only
// turns the gateway's wire-level request into the signer's shape and reports what was signed, so
// Bedrock targets can still be golden-tested against a fixed clock.
import { createHash } from 'node:crypto';
import { Hash } from '@smithy/hash-node';
import { getSigningKey, SignatureV4 } from '@smithy/signature-v4';
import type { HttpRequest, QueryParameterBag } from '@smithy/types';

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
  /** The body bytes (hashed by the signer) or nothing for an empty body. */
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

/** The SDK's node hash: HMAC when given a key, plain SHA-256 otherwise (what the AWS SDK passes). */
const sha256 = Hash.bind(null, 'sha256');

/** Headers the signer adds; with `authorization`, they are what the caller must send. */
const ADDED = ['x-amz-date', 'x-amz-security-token', 'x-amz-content-sha256', 'authorization'] as const;

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The documented key chain (date, region, service, `aws4_request`), as the SDK derives and caches it. */
export function signingKey(
  secret: string,
  day: string,
  region: string,
  service: string,
): Promise<Uint8Array> {
  return getSigningKey(sha256, { accessKeyId: '', secretAccessKey: secret }, day, region, service);
}

/**
 * The SDK signer, keeping the canonical request and string to sign it computed: they are what a
 * golden test or a signature mismatch needs to be explained.
 */
class RecordingSigner extends SignatureV4 {
  canonicalRequest = '';
  stringToSign = '';

  protected override createCanonicalRequest(
    ...args: Parameters<SignatureV4['createCanonicalRequest']>
  ): string {
    this.canonicalRequest = super.createCanonicalRequest(...args);
    return this.canonicalRequest;
  }

  protected override async createStringToSign(
    ...args: Parameters<SignatureV4['createStringToSign']>
  ): Promise<string> {
    this.stringToSign = await super.createStringToSign(...args);
    return this.stringToSign;
  }
}

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The wire query as the signer's bag: names and values decoded (it re-encodes them, RFC 3986). */
function queryBag(query: string): QueryParameterBag {
  const bag: Record<string, string | string[]> = Object.create(null);
  for (const piece of (query.startsWith('?') ? query.slice(1) : query).split('&')) {
    if (piece === '') continue;
    const eq = piece.indexOf('=');
    const name = decode(eq < 0 ? piece : piece.slice(0, eq));
    // A bare name is signed as `name=`: the signer drops a null value altogether.
    const value = eq < 0 ? '' : decode(piece.slice(eq + 1));
    const seen = bag[name];
    bag[name] = seen === undefined ? value : [seen, value].flat();
  }
  return bag;
}

/** Header values as the signer takes them: one string per name, repeated values trimmed and joined by `,`. */
function headerBag(headers: SigV4Input['headers']): Record<string, string> {
  const bag: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase();
    if (key === 'authorization') continue;
    bag[key] = typeof value === 'string' ? value : value.map((v) => v.trim()).join(',');
  }
  if (bag.host === undefined) throw new Error('SigV4: the host header must be signed');
  return bag;
}

export async function signSigV4(input: SigV4Input): Promise<SigV4Result> {
  const headers = headerBag(input.headers);
  const signer = new RecordingSigner({
    service: input.service,
    region: input.region,
    credentials: input.credentials,
    sha256,
    uriEscapePath: true,
    applyChecksum: input.contentSha256Header === true,
  });
  const request: HttpRequest = {
    method: input.method.toUpperCase(),
    protocol: 'https:',
    hostname: headers.host as string,
    path: input.path,
    query: queryBag(input.query),
    headers,
    ...(input.body !== undefined && { body: input.body }),
  };
  const signed = await signer.sign(request, { signingDate: input.date });
  const added: Record<string, string> = {};
  for (const name of ADDED) {
    const value = signed.headers[name];
    if (value !== undefined) added[name] = value;
  }
  const authorization = added.authorization ?? '';
  return {
    headers: added,
    canonicalRequest: signer.canonicalRequest,
    stringToSign: signer.stringToSign,
    signature: /Signature=([0-9a-f]+)$/.exec(authorization)?.[1] ?? '',
    signedHeaders: /SignedHeaders=([^,]+),/.exec(authorization)?.[1] ?? '',
  };
}
