// Sealing credentials for storage: the envelope (bound to its owner) and the masked copy responses
// show. Without MASTER_KEY nothing is stored: refusing beats storing plaintext.
import { credentialsAad, sealSecret } from '@aigw/secret-box';
import { apiError, invalid } from '../api-errors.js';
import { type Credentials, credentialsOptional, maskCredentials, parseCredentials } from './credentials.js';
import type { AiProvider } from './provider-types.js';

export interface SealedCredentials {
  readonly encrypted: Buffer;
  readonly masked: Record<string, unknown>;
}

/** Operator misconfiguration, not a client mistake: 500 AB04 with a message that says what to set. */
function masterKeyMissing() {
  return apiError(
    'AB04',
    'MASTER_KEY is not set on this control plane, so provider credentials cannot be stored (see docs/secrets.md)',
  );
}

export function sealCredentials(
  masterKey: Buffer | null,
  owner: 'integration' | 'provider',
  id: string,
  credentials: Credentials,
): SealedCredentials {
  if (masterKey === null) throw masterKeyMissing();
  return {
    encrypted: sealSecret(masterKey, JSON.stringify(credentials), credentialsAad(owner, id)),
    masked: maskCredentials(credentials),
  };
}

export interface CredentialColumns {
  readonly encrypted_credentials: Buffer | null;
  readonly masked_credentials: string | null;
}

/**
 * The columns for a credentials field of a request: undefined keeps what is stored, null removes
 * the credentials (400 for types that need them), an object is validated for the type and sealed.
 */
export function credentialColumns(
  input: Record<string, unknown> | null | undefined,
  target: { type: AiProvider; owner: 'integration' | 'provider'; id: string; masterKey: Buffer | null },
  param: string,
): CredentialColumns | undefined {
  if (input === undefined) return undefined;
  if (input === null) {
    if (!credentialsOptional(target.type)) throw invalid(`${param}: required for ${target.type}`, param);
    return { encrypted_credentials: null, masked_credentials: null };
  }
  const credentials = parseCredentials(target.type, input, param);
  const sealed = sealCredentials(target.masterKey, target.owner, target.id, credentials);
  return { encrypted_credentials: sealed.encrypted, masked_credentials: JSON.stringify(sealed.masked) };
}
