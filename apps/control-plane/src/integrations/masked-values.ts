// The masked form of a stored secret (what every admin API response shows in its place) and the one
// rule for reading it back on update: a value that is exactly the mask of the secret stored at the same
// place means "unchanged" (the stored plaintext is kept), so a client may GET, change one field and PUT
// the whole body back; a value shaped like a mask that matches nothing stored there is refused, since
// storing a mask as the secret is never what the client meant (gateways would send `****abcd`).
import { invalid } from '../api-errors.js';

/** `****abcd`; secrets shorter than 12 characters show nothing of themselves. */
export function maskSecret(value: string): string {
  return value.length >= 12 ? `****${value.slice(-4)}` : '****';
}

/**
 * The shape of what maskSecret produces: four stars, then at most four characters that are not stars
 * (a value of this shape is never taken as a new secret).
 */
const MASK = /^\*{4}[^*]{0,4}$/;

export function looksMasked(value: unknown): value is string {
  return typeof value === 'string' && MASK.test(value);
}

/** Whether `value` (a request's JSON) holds a string that may be a mask: every mask starts `****`. */
export function holdsMask(value: unknown): boolean {
  if (typeof value === 'string') return value.startsWith('****');
  if (typeof value !== 'object' || value === null) return false;
  return Object.values(value).some(holdsMask);
}

/**
 * What is stored, for reading the masks of `sent`: `open()` only when `sent` may hold a mask (an
 * update with real values never needs the stored envelope, so one that no longer opens does not
 * block it), else `empty`. An envelope that does not open (sealed under another MASTER_KEY) holds
 * nothing readable: a mask sent for it is then refused like any stray mask.
 */
export function storedForMasks<T>(sent: unknown, open: () => T, empty: T): T {
  if (!holdsMask(sent)) return empty;
  try {
    return open();
  } catch {
    return empty;
  }
}

/**
 * The value to store at `param` for `sent`: the stored plaintext when `sent` is its mask, `sent` when it
 * does not look like a mask (a real new value), else 400 AB01 on `param`. `masked` says how the stored
 * value is shown (maskSecret for a string; a key file shows one of its fields).
 */
export function unmasked<T>(
  sent: unknown,
  stored: T | undefined,
  param: string,
  masked: (stored: T) => string | undefined = (value) =>
    typeof value === 'string' ? maskSecret(value) : undefined,
): unknown {
  // Compared first: the mask of a secret ending in `*` (`******cd`) is not shaped like one.
  if (stored !== undefined && typeof sent === 'string' && masked(stored) === sent) return stored;
  if (!looksMasked(sent)) return sent;
  throw invalid(
    `${param}: "${sent}" is a masked value that matches no secret stored here; send the real value`,
    param,
  );
}
