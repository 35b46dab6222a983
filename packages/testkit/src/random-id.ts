// Short random identifiers for per-file namespaces (database names, key and stream prefixes).
import { randomBytes } from 'node:crypto';

/** Lowercase hex, safe in database names, Redis keys, NATS subjects and stream names. */
export function randomId(bytes = 5): string {
  return randomBytes(bytes).toString('hex');
}
