// Token authentication (spec 5.4): verifies a JWT against the configured remote JWKS and maps its
// claims. Shared by the control plane (Authorization: Bearer) and the gateway (x-service-api-key).
import {
  createRemoteJWKSet,
  errors,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
  type RemoteJWKSetOptions,
} from 'jose';
import type { JwtSettings } from './jwt-settings.js';

export type TokenRole = 'owner' | 'admin' | 'manager' | 'member';

export interface TokenIdentity {
  /** The user id claim (`JWT_CLAIM_USER`). */
  subject: string;
  organisationId: string;
  /** null: an organisation-level token. */
  workspaceId: string | null;
  role: TokenRole;
  scopes: readonly string[];
  expiresAt: Date;
  /** The `jti` claim when present. */
  tokenId: string | null;
}

export type TokenFailureReason =
  | 'malformed'
  | 'algorithm_not_allowed'
  | 'unknown_key'
  | 'bad_signature'
  | 'expired'
  | 'not_yet_valid'
  | 'missing_exp'
  | 'wrong_issuer'
  | 'wrong_audience'
  | 'missing_claim'
  | 'invalid_claim'
  | 'jwks_unavailable';

/** A token was refused. The message is meant for the caller: it says what is wrong, never echoes the token. */
export class TokenError extends Error {
  readonly reason: TokenFailureReason;

  constructor(reason: TokenFailureReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TokenError';
    this.reason = reason;
  }
}

export interface JwtVerifier {
  /** Resolves the caller's identity, or rejects with a TokenError. */
  verify(token: string): Promise<TokenIdentity>;
}

export interface JwtVerifierOptions {
  /** JWKS HTTP request timeout (default 5 s). */
  fetchTimeoutMs?: number;
  /** How long fetched keys are trusted before the next request refetches them (default 10 min). */
  cacheMaxAgeMs?: number;
  /** Minimum time between a fetch and a refetch caused by an unknown `kid` (default 30 s). */
  cooldownMs?: number;
}

const ROLES: readonly TokenRole[] = ['owner', 'admin', 'manager', 'member'];
const WORKSPACE_ROLES: ReadonlySet<TokenRole> = new Set(['manager', 'member']);
const SCOPE = /^[a-z_]+\.[a-z_]+$/;
/** OpenID Connect protocol scopes: identity-provider plumbing, not permissions here, so ignored. */
const OIDC_SCOPES: ReadonlySet<string> = new Set([
  'openid',
  'profile',
  'email',
  'address',
  'phone',
  'offline_access',
]);
const MAX_SCOPES = 256;
const MAX_TOKEN_LENGTH = 16_384;
// Printable, no whitespace at the ends: these ids end up in audit rows and log lines.
const IDENTIFIER = /^[^\s\p{Cc}](?:[^\p{Cc}]{0,253}[^\s\p{Cc}])?$/u;

/** Returns null when token authentication is off (`JWT_JWKS_URL` unset). */
export function createJwtVerifier(
  settings: JwtSettings,
  options: JwtVerifierOptions = {},
): JwtVerifier | null {
  const jwksUrl = settings.JWT_JWKS_URL;
  if (jwksUrl === undefined) return null;
  const issuer = settings.JWT_ISSUER;
  const audience = settings.JWT_AUDIENCE;
  if (issuer === undefined || audience === undefined) {
    throw new Error('JWT_ISSUER and JWT_AUDIENCE are required when JWT_JWKS_URL is set');
  }
  const remoteOptions: RemoteJWKSetOptions = {
    timeoutDuration: options.fetchTimeoutMs ?? 5_000,
    cacheMaxAge: options.cacheMaxAgeMs ?? 600_000,
    cooldownDuration: options.cooldownMs ?? 30_000,
  };
  const remote = createRemoteJWKSet(new URL(jwksUrl), remoteOptions);
  // Key-set lookups that fail for any reason other than "no such key" are a JWKS outage, not a bad token.
  const getKey: JWTVerifyGetKey = async (header, token) => {
    try {
      return await remote(header, token);
    } catch (error) {
      if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) {
        throw error;
      }
      throw jwksUnavailable(error);
    }
  };
  const algorithms = [...settings.JWT_ALGORITHMS];
  const skew = settings.JWT_CLOCK_SKEW_SECONDS;

  return {
    async verify(token) {
      if (token.length > MAX_TOKEN_LENGTH) {
        throw new TokenError('malformed', `the token is longer than ${MAX_TOKEN_LENGTH} characters`);
      }
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, getKey, {
          algorithms,
          issuer,
          audience,
          clockTolerance: skew,
          requiredClaims: ['exp'],
        }));
      } catch (error) {
        throw toTokenError(error, algorithms, skew);
      }
      return identityFrom(payload, settings);
    },
  };
}

function jwksUnavailable(cause: unknown): TokenError {
  const why =
    cause instanceof errors.JWKSTimeout
      ? 'the request timed out'
      : cause instanceof errors.JOSEError || cause instanceof DOMException
        ? 'it did not answer with a usable key set'
        : 'it could not be reached';
  return new TokenError(
    'jwks_unavailable',
    `the token's signing keys could not be fetched from the configured JWKS URL (${why}); try again later`,
    { cause },
  );
}

function toTokenError(error: unknown, algorithms: readonly string[], skew: number): Error {
  if (error instanceof TokenError) return error;
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return new TokenError(
      'algorithm_not_allowed',
      `the token is signed with an algorithm this service does not accept (accepted: ${algorithms.join(', ')}); ` +
        'unsigned (alg "none") and shared-secret (HS*) tokens are never accepted',
    );
  }
  if (error instanceof errors.JWKSNoMatchingKey) {
    return new TokenError(
      'unknown_key',
      'no key in the configured key set matches the token\'s key id ("kid") and algorithm; ' +
        'the signing key may have been rotated out',
    );
  }
  if (error instanceof errors.JWKSMultipleMatchingKeys) {
    return new TokenError(
      'unknown_key',
      'the token names no key id ("kid") and several keys in the configured key set match its algorithm; ' +
        'tokens must carry the "kid" of their signing key',
    );
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return new TokenError('bad_signature', 'the token signature does not verify against the key it names');
  }
  if (error instanceof errors.JWTExpired) {
    return new TokenError(
      'expired',
      `the token has expired ("exp" is in the past, beyond the allowed clock skew of ${skew} s)`,
    );
  }
  if (error instanceof errors.JWTClaimValidationFailed) return claimFailure(error, skew);
  if (error instanceof errors.JWTInvalid) {
    return new TokenError('malformed', 'the token payload is not a JSON object of claims');
  }
  if (error instanceof errors.JWSInvalid || error instanceof errors.JOSENotSupported) {
    return new TokenError(
      'malformed',
      'the token is not a well-formed signed JWT (three base64url parts: a JSON header naming its "alg", ' +
        'the claims, and the signature)',
    );
  }
  return error instanceof Error ? error : new Error(String(error));
}

function claimFailure(error: errors.JWTClaimValidationFailed, skew: number): TokenError {
  const { claim, reason } = error;
  if (claim === 'exp' && reason === 'missing') {
    return new TokenError(
      'missing_exp',
      'the token has no expiry ("exp" claim); only expiring tokens are accepted',
    );
  }
  if (claim === 'nbf' && reason === 'check_failed') {
    return new TokenError(
      'not_yet_valid',
      `the token is not valid yet ("nbf" is in the future, beyond the allowed clock skew of ${skew} s)`,
    );
  }
  if (claim === 'iss') {
    return new TokenError(
      'wrong_issuer',
      reason === 'missing'
        ? 'the token names no issuer ("iss" claim)'
        : 'the token was issued by an issuer this service does not trust ("iss" does not match the configured issuer)',
    );
  }
  if (claim === 'aud') {
    return new TokenError(
      'wrong_audience',
      reason === 'missing'
        ? 'the token names no audience ("aud" claim)'
        : 'the token is not meant for this service ("aud" does not include the configured audience)',
    );
  }
  if (reason === 'missing') return missingClaim(claim);
  if (reason === 'invalid') {
    return new TokenError(
      'invalid_claim',
      `the "${claim}" claim must be a NumericDate (seconds since the epoch)`,
    );
  }
  return new TokenError('invalid_claim', `the "${claim}" claim did not pass validation`);
}

function missingClaim(name: string, what?: string): TokenError {
  return new TokenError('missing_claim', `the token has no "${name}" claim${what ? ` (${what})` : ''}`);
}

function identityFrom(payload: JWTPayload, settings: JwtSettings): TokenIdentity {
  const subject = requiredIdentifier(payload, settings.JWT_CLAIM_USER, 'the user id');
  const organisationId = requiredIdentifier(payload, settings.JWT_CLAIM_ORGANISATION, 'the organisation id');
  const workspaceId = optionalIdentifier(payload, settings.JWT_CLAIM_WORKSPACE);
  const role = roleFrom(payload, settings.JWT_CLAIM_ROLE);
  if (workspaceId === null && WORKSPACE_ROLES.has(role)) {
    throw new TokenError(
      'invalid_claim',
      `the role "${role}" is a workspace role, so the token must name a workspace ("${settings.JWT_CLAIM_WORKSPACE}" claim)`,
    );
  }
  const scopes = scopesFrom(payload, settings.JWT_CLAIM_SCOPES);
  const jti = payload.jti;
  if (jti !== undefined && (typeof jti !== 'string' || jti === '')) {
    throw new TokenError('invalid_claim', 'the "jti" claim must be a non-empty string');
  }
  // jwtVerify checked that exp is present and a number.
  const expiresAt = new Date((payload.exp as number) * 1000);
  return { subject, organisationId, workspaceId, role, scopes, expiresAt, tokenId: jti ?? null };
}

/**
 * Reads a claim by name: the name as written when the payload has such a top-level claim (so namespaced
 * claims like `https://example.com/org` work), otherwise dots separate nesting levels (`org.id`).
 */
function readClaim(payload: Readonly<Record<string, unknown>>, name: string): unknown {
  if (Object.hasOwn(payload, name)) return payload[name];
  for (let dot = name.indexOf('.'); dot !== -1; dot = name.indexOf('.', dot + 1)) {
    const head = name.slice(0, dot);
    const inner = Object.hasOwn(payload, head) ? payload[head] : undefined;
    if (isRecord(inner)) {
      const value = readClaim(inner, name.slice(dot + 1));
      if (value !== undefined) return value;
    }
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function requiredIdentifier(payload: JWTPayload, name: string, what: string): string {
  const value = readClaim(payload, name);
  if (value === undefined || value === null) throw missingClaim(name, what);
  return identifier(value, name);
}

function optionalIdentifier(payload: JWTPayload, name: string): string | null {
  const value = readClaim(payload, name);
  return value === undefined || value === null ? null : identifier(value, name);
}

function identifier(value: unknown, name: string): string {
  if (typeof value === 'string' && IDENTIFIER.test(value)) return value;
  throw new TokenError(
    'invalid_claim',
    `the "${name}" claim must be a string of 1 to 255 printable characters without surrounding spaces`,
  );
}

function roleFrom(payload: JWTPayload, name: string): TokenRole {
  const value = readClaim(payload, name);
  if (value === undefined || value === null) throw missingClaim(name, 'the role');
  const role = ROLES.find((r) => r === value);
  if (role === undefined) {
    throw new TokenError('invalid_claim', `the "${name}" claim must be one of ${ROLES.join(', ')}`);
  }
  return role;
}

function scopesFrom(payload: JWTPayload, name: string): readonly string[] {
  const value = readClaim(payload, name);
  if (value === undefined || value === null) return Object.freeze([]);
  const shapeError = () =>
    new TokenError(
      'invalid_claim',
      `the "${name}" claim must be a space-separated string or an array of strings of at most ${MAX_SCOPES} scopes`,
    );
  let listed: string[];
  if (typeof value === 'string') listed = value.split(/\s+/).filter(Boolean);
  else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) listed = value;
  else throw shapeError();
  if (listed.length > MAX_SCOPES) throw shapeError();
  const scopes = [...new Set(listed.filter((s) => !OIDC_SCOPES.has(s)))];
  if (!scopes.every((s) => SCOPE.test(s))) {
    throw new TokenError(
      'invalid_claim',
      `every scope in the "${name}" claim must look like "resource.action" (lowercase letters and "_")`,
    );
  }
  return Object.freeze(scopes);
}
