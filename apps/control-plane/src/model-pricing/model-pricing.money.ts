// Exact conversion between the API's decimal prices (USD, `2.5`) and stored integer micro-units.

export const MICROS_PER_UNIT = 1_000_000;
/** Highest price the API accepts, in USD (per million tokens, per request or per extra unit). */
export const MAX_PRICE = 1_000_000;

/**
 * Micro-units of a decimal amount, or null when it has more than six decimal places (it would be
 * rounded), is negative, not finite or above MAX_PRICE. Works on the number's shortest decimal
 * form, so `0.1` is exactly 100000 and never 100000.00000000001.
 */
export function toMicros(value: number): number | null {
  if (!Number.isFinite(value) || value < 0 || value > MAX_PRICE) return null;
  const [mantissa = '', exponent = '0'] = String(value).split('e');
  const [whole = '', fraction = ''] = mantissa.split('.');
  const decimals = fraction.length - Number(exponent);
  if (decimals > 6) return null;
  return Number(BigInt(whole + fraction) * 10n ** BigInt(6 - decimals));
}

/** The decimal amount of stored micro-units (exact for the values toMicros produces). */
export function fromMicros(micros: number | string): number {
  return Number(micros) / MICROS_PER_UNIT;
}
