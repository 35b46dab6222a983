// Provider credentials sent on an update of their owner (an integration, or a virtual key holding its
// own), read against what is stored (masked-values.ts): a masked value sent back keeps the stored
// secret at that field, a stray mask is 400. One module for both owners, so they cannot drift apart.
import { conflict } from '../api-errors.js';
import { unmaskCredentials } from './credentials.js';
import { storedForMasks, unmasked } from './masked-values.js';
import { openCredentials } from './secret-mappings.js';
import type { MappedRow, SecretOwner } from './secret-owners.js';

type Stored = Pick<MappedRow, 'id' | 'encrypted_credentials'>;

export interface SentCredentials {
  /** What to check and store: `sent` with every mask of a stored value replaced by that value. */
  readonly credentials: Record<string, unknown> | null | undefined;
  /** Whether a mask kept a stored value (then the update must find the same envelope: sameCredentials). */
  readonly keptMasked: boolean;
}

/**
 * `sent` read against the credentials `before` holds. Without MASTER_KEY nothing is stored and a write
 * with credentials is refused later anyway. The stored envelope is opened only when `sent` may hold a
 * mask, so an update with real values works even when it no longer opens.
 */
export function credentialsSentBack(
  masterKey: Buffer | null,
  kind: SecretOwner['kind'],
  before: Stored,
  sent: Record<string, unknown> | null | undefined,
  param: string,
): SentCredentials {
  if (!sent || masterKey === null) return { credentials: sent, keptMasked: false };
  const stored = storedForMasks(sent, () => openCredentials(masterKey, kind, before), {});
  const credentials = unmaskCredentials(sent, stored, param);
  return { credentials, keptMasked: JSON.stringify(credentials) !== JSON.stringify(sent) };
}

/** A virtual key's `key` shorthand (`credentials: {api_key}`) read the same way, errors on `param`. */
export function keySentBack(
  masterKey: Buffer | null,
  before: Stored,
  key: string,
  param: string,
): SentCredentials {
  if (masterKey === null) return { credentials: { api_key: key }, keptMasked: false };
  const stored = storedForMasks(key, () => openCredentials(masterKey, 'provider', before), {});
  const value = unmasked(key, stored.api_key, param);
  return { credentials: { api_key: value }, keptMasked: value !== key };
}

/**
 * Inside the update's transaction, with the row locked: the masks were read against the credentials
 * read before it; if another write changed them since, keeping "the stored value" would bring back the
 * old secret, so that is a 409 (read again and retry).
 */
export function sameCredentials(sent: SentCredentials, current: Stored, before: Stored, what: string): void {
  const a = current.encrypted_credentials;
  const b = before.encrypted_credentials;
  if (!sent.keptMasked || (a === null || b === null ? a === b : a.equals(b))) return;
  throw conflict(
    `the credentials changed while this update was made: read the ${what} again and retry`,
    'body.credentials',
  );
}
