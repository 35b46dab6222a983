// Verifies an incoming SigV4 `Authorization` header the way Bedrock does, with Bedrock's 403 errors.
import { timingSafeEqual } from 'node:crypto';
import { bedrockError, type ProviderError } from './errors.js';
import {
  amzDate,
  canonicalRequest,
  credentialScope,
  SIGV4_ALGORITHM,
  sha256Hex,
  signature,
  stringToSign,
} from './sigv4.js';
import type { AwsCredentials } from './types.js';

export interface SigV4Request {
  method: string;
  /** Request target as received: percent-encoded path plus optional `?query`. */
  url: string;
  /** Lower-case names; repeated headers as arrays (node's `headersDistinct`). */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  body: Buffer;
}

export interface SigV4Options {
  service?: string;
  now?: Date;
  /** Allowed clock difference (AWS: 5 minutes). */
  maxSkewMs?: number;
}

export type SigV4Result =
  | { ok: true; accessKeyId: string; region: string; service: string }
  | { ok: false; error: ProviderError };

const fail = (type: string, message: string): SigV4Result => ({
  ok: false,
  error: bedrockError(403, type, message),
});
const invalidToken = () =>
  fail('UnrecognizedClientException', 'The security token included in the request is invalid.');

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

function parseAuthorization(
  value: string,
): { credential: string; signedHeaders: string[]; signature: string } | undefined {
  if (!value.startsWith(`${SIGV4_ALGORITHM} `)) return undefined;
  const fields: Record<string, string> = {};
  for (const part of value.slice(SIGV4_ALGORITHM.length + 1).split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0) fields[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  const { Credential: credential, SignedHeaders: signed, Signature: sig } = fields;
  if (!credential || !signed || !sig) return undefined;
  return { credential, signedHeaders: signed.split(';'), signature: sig };
}

function parseAmzDate(value: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!m) return undefined;
  return new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!));
}

export function verifySigV4(
  req: SigV4Request,
  credentials: AwsCredentials,
  options: SigV4Options = {},
): SigV4Result {
  const expectedService = options.service ?? 'bedrock';
  const header = (name: string) => single(req.headers[name]);
  const authorization = header('authorization');
  if (!authorization) return fail('MissingAuthenticationTokenException', 'Missing Authentication Token');
  const auth = parseAuthorization(authorization);
  if (!auth) {
    return fail(
      'IncompleteSignatureException',
      `Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' parameters with algorithm ${SIGV4_ALGORITHM}.`,
    );
  }
  const [accessKeyId, scopeDate, region, service, terminator, ...extra] = auth.credential.split('/');
  if (!accessKeyId || !scopeDate || !region || !service || !terminator || extra.length > 0) {
    return fail('IncompleteSignatureException', `Credential is malformed: ${auth.credential}`);
  }
  if (service !== expectedService) {
    return fail(
      'InvalidSignatureException',
      `Credential should be scoped to correct service: '${expectedService}'.`,
    );
  }
  if (terminator !== 'aws4_request') {
    return fail(
      'InvalidSignatureException',
      `Credential should be scoped with a valid terminator: 'aws4_request', not '${terminator}'.`,
    );
  }
  if (accessKeyId !== credentials.accessKeyId) return invalidToken();
  if (header('x-amz-security-token') !== credentials.sessionToken) return invalidToken();

  const stamp = header('x-amz-date');
  const signedAt = stamp === undefined ? undefined : parseAmzDate(stamp);
  if (stamp === undefined || signedAt === undefined) {
    return fail(
      'IncompleteSignatureException',
      "Authorization header requires existence of a valid 'X-Amz-Date' header.",
    );
  }
  if (stamp.slice(0, 8) !== scopeDate) {
    return fail(
      'InvalidSignatureException',
      `Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '${scopeDate}' != '${stamp.slice(0, 8)}'.`,
    );
  }
  const now = options.now ?? new Date();
  const skew = options.maxSkewMs ?? 5 * 60_000;
  if (signedAt.getTime() < now.getTime() - skew) {
    return fail(
      'InvalidSignatureException',
      `Signature expired: ${stamp} is now earlier than ${amzDate(new Date(now.getTime() - skew))}.`,
    );
  }
  if (signedAt.getTime() > now.getTime() + skew) {
    return fail(
      'InvalidSignatureException',
      `Signature not yet current: ${stamp} is still later than ${amzDate(new Date(now.getTime() + skew))}.`,
    );
  }
  for (const required of ['host', 'x-amz-date']) {
    if (!auth.signedHeaders.includes(required)) {
      return fail(
        'InvalidSignatureException',
        `'${required}' must be a 'SignedHeader' in the AWS Authorization.`,
      );
    }
  }
  if (credentials.sessionToken && !auth.signedHeaders.includes('x-amz-security-token')) {
    return fail(
      'InvalidSignatureException',
      "'x-amz-security-token' must be a 'SignedHeader' in the AWS Authorization.",
    );
  }

  const payloadHash = sha256Hex(req.body);
  const declared = header('x-amz-content-sha256');
  if (declared !== undefined && declared !== payloadHash) {
    return fail(
      'InvalidSignatureException',
      "The provided 'x-amz-content-sha256' header does not match what was computed.",
    );
  }
  const q = req.url.indexOf('?');
  const headers: Record<string, string | undefined> = {};
  for (const name of auth.signedHeaders) headers[name] = header(name);
  const canonical = canonicalRequest({
    method: req.method,
    rawPath: q < 0 ? req.url : req.url.slice(0, q),
    rawQuery: q < 0 ? '' : req.url.slice(q + 1),
    headers,
    signedHeaders: auth.signedHeaders,
    payloadHash,
  });
  const expected = signature(
    credentials.secretAccessKey,
    scopeDate,
    region,
    service,
    stringToSign(stamp, credentialScope(scopeDate, region, service), canonical),
  );
  const given = Buffer.from(auth.signature);
  if (given.length !== expected.length || !timingSafeEqual(given, Buffer.from(expected))) {
    return fail(
      'InvalidSignatureException',
      'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
    );
  }
  return { ok: true, accessKeyId, region, service };
}
