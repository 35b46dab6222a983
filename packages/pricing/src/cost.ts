// The cost of one request from a price row and its usage (tokens, and the media units images and
// audio are billed by), in exact integer micro-units. Pure: shared by everything that prices
// traffic (gateway budgets and request events, logger ledger, admin tools).
import { extraPrices, hasMedia, imagePrice, type MediaUnits } from './media.js';

/** The price dimensions of a ModelPricing body (proto field names), all micro-units of its currency. */
export interface PriceRates {
  readonly inputMicrosPerMtok: number;
  readonly outputMicrosPerMtok: number;
  readonly cachedInputMicrosPerMtok: number;
  readonly cacheWriteMicrosPerMtok: number;
  readonly requestMicros: number;
  /** Other dimensions as JSON, micro-units per named unit (`{"per_image":40000}`); '' when none. */
  readonly extraJson?: string | undefined;
}

/**
 * Token counts of one request, as in proto TokenUsage: `inputTokens` INCLUDES the cached and
 * cache-write tokens, which are the parts of it billed at their own rates.
 */
export interface TokenCounts {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedInputTokens?: number;
  readonly cacheWriteInputTokens?: number;
}

/** What costOf prices: token counts and, for image and audio requests, their media units. */
export type UsageCounts = TokenCounts & MediaUnits;

const MTOK = 1_000_000n;
/** Seconds in an hour: the per-million, per-minute and per-hour parts share one denominator. */
const HOUR = 3_600n;

function count(value: number | undefined, name: string): number {
  const n = value ?? 0;
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${name} must be a non-negative integer`);
  return n;
}

function rate(value: number, name: string): bigint {
  return BigInt(whole(value, name));
}

/**
 * Micro-units charged for one request: the fixed request price, every token dimension at its rate,
 * and the media units at their `extra` prices (media.ts names them):
 * - images × the image price (`per_image_<quality>_<size>`, `per_image_<size>`, `per_image`);
 * - characters × `per_mchar` / 1,000,000;
 * - audio seconds × `per_audio_minute` / 60, or × `per_audio_hour` / 3600 when the row has no
 *   per-minute price.
 * The fractional parts (tokens, characters, audio) are summed exactly (BigInt) and rounded ONCE,
 * half up, to a whole micro-unit; image and request prices are whole already. Cached and
 * cache-write counts are parts of the input count; whatever exceeds it is capped (a provider never
 * bills more cached tokens than input tokens). A unit whose price the row lacks costs 0, as a model
 * without a row does. Throws RangeError on negative or fractional counts or rates, and when the
 * result is not a safe integer.
 */
export function costOf(pricing: PriceRates, usage: UsageCounts): number {
  if (!hasMedia(usage)) {
    const fast = tokenCost(pricing, usage);
    if (fast !== undefined) return fast;
  }
  return exactCost(pricing, usage);
}

/**
 * costOf of a token-only usage in plain numbers, undefined when a product or the sum would leave
 * the safe integer range (then exactCost's BigInts give it). Every step is an integer below 2^53,
 * so it is exact: the same result, without a BigInt per price dimension on every request.
 */
function tokenCost(pricing: PriceRates, usage: TokenCounts): number | undefined {
  const { uncached, cached, write, output } = billedTokens(usage);
  const perMillion =
    uncached * whole(pricing.inputMicrosPerMtok, 'inputMicrosPerMtok') +
    cached * whole(pricing.cachedInputMicrosPerMtok, 'cachedInputMicrosPerMtok') +
    write * whole(pricing.cacheWriteMicrosPerMtok, 'cacheWriteMicrosPerMtok') +
    output * whole(pricing.outputMicrosPerMtok, 'outputMicrosPerMtok');
  // The sum of four non-negative terms is safe only if every term was: one check for all.
  if (!Number.isSafeInteger(perMillion)) return undefined;
  // perMillion / 1,000,000 rounded half up, as exactCost rounds: quotient and remainder exactly.
  let quotient = Math.floor(perMillion / 1_000_000);
  let remainder = perMillion - quotient * 1_000_000;
  if (remainder < 0) {
    quotient -= 1;
    remainder += 1_000_000;
  } else if (remainder >= 1_000_000) {
    quotient += 1;
    remainder -= 1_000_000;
  }
  const total = quotient + (remainder >= 500_000 ? 1 : 0) + whole(pricing.requestMicros, 'requestMicros');
  return Number.isSafeInteger(total) ? total : undefined;
}

/** The token counts billed at each rate: the input split into its uncached, cached and cache-write parts. */
function billedTokens(usage: TokenCounts) {
  const input = count(usage.inputTokens, 'inputTokens');
  const output = count(usage.outputTokens, 'outputTokens');
  const cached = Math.min(count(usage.cachedInputTokens, 'cachedInputTokens'), input);
  const write = Math.min(count(usage.cacheWriteInputTokens, 'cacheWriteInputTokens'), input - cached);
  return { uncached: input - cached - write, cached, write, output };
}

function whole(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`${name} must be a non-negative integer`);
  return value;
}

/** costOf in BigInts: media units, and token counts whose products leave the safe integer range. */
export function exactCost(pricing: PriceRates, usage: UsageCounts): number {
  const { uncached, cached, write, output } = billedTokens(usage);
  let perMillion =
    BigInt(uncached) * rate(pricing.inputMicrosPerMtok, 'inputMicrosPerMtok') +
    BigInt(cached) * rate(pricing.cachedInputMicrosPerMtok, 'cachedInputMicrosPerMtok') +
    BigInt(write) * rate(pricing.cacheWriteMicrosPerMtok, 'cacheWriteMicrosPerMtok') +
    BigInt(output) * rate(pricing.outputMicrosPerMtok, 'outputMicrosPerMtok');
  // In 1/1,000,000 micro-units per hour-second: per-minute and per-hour prices divide exactly.
  let perMillionHour = 0n;
  let whole = rate(pricing.requestMicros, 'requestMicros');
  if (hasMedia(usage)) {
    const extra = extraPrices(pricing.extraJson);
    const images = count(usage.images, 'images');
    const characters = count(usage.characters, 'characters');
    const seconds = count(usage.audioSeconds, 'audioSeconds');
    if (images > 0) {
      const each = imagePrice(extra, usage.imageQuality, usage.imageSize);
      if (each !== undefined) whole += BigInt(images) * rate(each, 'extra image price');
    }
    if (characters > 0 && extra.per_mchar !== undefined)
      perMillion += BigInt(characters) * rate(extra.per_mchar, 'extra.per_mchar');
    if (seconds > 0) {
      if (extra.per_audio_minute !== undefined)
        perMillionHour +=
          BigInt(seconds) * rate(extra.per_audio_minute, 'extra.per_audio_minute') * 60n * MTOK;
      else if (extra.per_audio_hour !== undefined)
        perMillionHour += BigInt(seconds) * rate(extra.per_audio_hour, 'extra.per_audio_hour') * MTOK;
    }
  }
  const numerator = perMillion * HOUR + perMillionHour;
  const denominator = MTOK * HOUR;
  const total = (numerator + denominator / 2n) / denominator + whole;
  if (total > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError('cost exceeds the safe integer range');
  return Number(total);
}
