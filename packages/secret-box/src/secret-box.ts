// AES-256-GCM envelopes: version byte, random IV, ciphertext, tag, bound to their owner by the AAD.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** The only envelope layout so far; a future key-id layout takes the next value (docs/secrets.md). */
export const ENVELOPE_VERSION = 1;
export const KEY_BYTES = 32;
export const IV_BYTES = 12;
export const TAG_BYTES = 16;
const HEADER_BYTES = 1 + IV_BYTES;
const MAX_AAD_BYTES = 1024;

/** Why an envelope could not be sealed or opened. Messages never contain a key or a plaintext. */
export class SecretBoxError extends Error {
  readonly reason: 'bad_key' | 'bad_aad' | 'bad_envelope' | 'unsupported_version' | 'authentication_failed';

  constructor(reason: SecretBoxError['reason'], message: string) {
    super(message);
    this.name = 'SecretBoxError';
    this.reason = reason;
  }
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The master key from its setting: standard base64 (padding optional) of exactly 32 bytes. */
export function parseMasterKey(base64: string): Buffer {
  const text = base64.trim();
  if (!BASE64.test(text) || text.replace(/=+$/, '').length % 4 === 1) {
    throw new SecretBoxError('bad_key', 'master key must be base64 (A-Z a-z 0-9 + /, optional = padding)');
  }
  const key = Buffer.from(text, 'base64');
  if (key.length !== KEY_BYTES) {
    throw new SecretBoxError('bad_key', `master key must decode to ${KEY_BYTES} bytes, got ${key.length}`);
  }
  return key;
}

function checkKey(key: Buffer): void {
  if (!Buffer.isBuffer(key) || key.length !== KEY_BYTES) {
    throw new SecretBoxError('bad_key', `master key must be ${KEY_BYTES} bytes`);
  }
}

/** An empty AAD would make an envelope valid for any owner, so one is always required. */
function aadBytes(aad: string): Buffer {
  const bytes = Buffer.from(aad, 'utf8');
  if (bytes.length === 0 || bytes.length > MAX_AAD_BYTES) {
    throw new SecretBoxError('bad_aad', `aad must be 1 to ${MAX_AAD_BYTES} bytes`);
  }
  return bytes;
}

/** Encrypts `plaintext` under `masterKey`; the envelope opens only with the same key and `aad`. */
export function sealSecret(masterKey: Buffer, plaintext: Buffer | string, aad: string): Buffer {
  checkKey(masterKey);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', masterKey, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aadBytes(aad));
  const data = typeof plaintext === 'string' ? Buffer.from(plaintext, 'utf8') : plaintext;
  const ciphertext = Buffer.concat([cipher.update(data), cipher.final()]);
  return Buffer.concat([Buffer.of(ENVELOPE_VERSION), iv, ciphertext, cipher.getAuthTag()]);
}

/** Decrypts an envelope made by `sealSecret`; any change to it, the key or the aad fails. */
export function openSecret(masterKey: Buffer, envelope: Buffer, aad: string): Buffer {
  checkKey(masterKey);
  if (!Buffer.isBuffer(envelope) || envelope.length < HEADER_BYTES + TAG_BYTES) {
    throw new SecretBoxError('bad_envelope', 'envelope is too short');
  }
  const version = envelope[0];
  if (version !== ENVELOPE_VERSION) {
    throw new SecretBoxError('unsupported_version', `unsupported envelope version ${version}`);
  }
  const iv = envelope.subarray(1, HEADER_BYTES);
  const ciphertext = envelope.subarray(HEADER_BYTES, envelope.length - TAG_BYTES);
  const tag = envelope.subarray(envelope.length - TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', masterKey, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(aadBytes(aad));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  } catch {
    // GCM gives one answer for a wrong key, a wrong aad and a tampered envelope, by design.
    throw new SecretBoxError(
      'authentication_failed',
      'envelope does not open: wrong key, wrong owner or tampered',
    );
  }
}

/** The AAD of a credential envelope: the kind and id of the entity that owns it. */
export function credentialsAad(owner: 'integration' | 'provider' | 'mcp_integration', id: string): string {
  return `${owner}:${id.toLowerCase()}`;
}

/** The AAD of a saved guardrail's webhook-headers envelope: bound to the guardrail's id. */
export function webhookHeadersAad(guardrailId: string): string {
  return `guardrail:${guardrailId.toLowerCase()}`;
}

/**
 * The AAD of a saved config version's webhook-headers envelope: bound to the config's id and its
 * config version, so one version's headers never open as another's (or as a guardrail's).
 */
export function configHeadersAad(configId: string, configVersion: number): string {
  return `config:${configId.toLowerCase()}:${configVersion}`;
}
