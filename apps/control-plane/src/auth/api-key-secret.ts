// API key material: 32 random bytes behind a recognisable prefix, stored only as a SHA-256 hash.
import { createHash, randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'aigw_';

export interface NewApiKeySecret {
  readonly key: string;
  readonly hash: string;
  readonly last4: string;
}

export function generateApiKey(): NewApiKeySecret {
  return describeApiKey(`${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`);
}

/** Hash and display suffix of a key given by the operator (BOOTSTRAP_ADMIN_KEY) or generated. */
export function describeApiKey(key: string): NewApiKeySecret {
  return { key, hash: hashApiKey(key), last4: key.slice(-4) };
}

/** Lowercase hex SHA-256: the lookup key in Postgres and in the gateway's snapshot (proto ApiKey.key_hash). */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
