// Which organisation a refused token belongs to, for its audit record: read from the claims only
// when the signature verified (the failure came later: expiry, issuer, audience, a claim), since an
// unverified token's claims are whatever the caller wrote.
import type { TokenFailureReason } from './jwt.js';
import { isUuid } from './visibility.js';

/** Failures jose and the verifier report only after the signature checked out. */
const SIGNED_FAILURES: ReadonlySet<TokenFailureReason> = new Set([
  'expired',
  'not_yet_valid',
  'missing_exp',
  'wrong_issuer',
  'wrong_audience',
  'missing_claim',
  'invalid_claim',
]);

/** True when a token refused for `reason` carried a verified signature. */
export function signatureVerified(reason: TokenFailureReason): boolean {
  return SIGNED_FAILURES.has(reason);
}

/**
 * The organisation id (lower case) the token's payload names under `claim` (a top-level name, else
 * dotted nesting, like the verifier reads it), or null when absent or not a uuid.
 */
export function claimedOrganisation(token: string, claim: string): string | null {
  const part = token.split('.')[1];
  if (part === undefined) return null;
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  let value: unknown = payload;
  if (payload !== null && typeof payload === 'object' && Object.hasOwn(payload, claim))
    value = (payload as Record<string, unknown>)[claim];
  else
    for (const name of claim.split('.')) {
      value =
        value !== null && typeof value === 'object' && Object.hasOwn(value, name)
          ? (value as Record<string, unknown>)[name]
          : undefined;
    }
  return typeof value === 'string' && isUuid(value) ? value.toLowerCase() : null;
}
