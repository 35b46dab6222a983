// The cost of one request from a price row and its token usage, in exact integer micro-units.
// Pure: shared by everything that prices traffic (gateway budgets, logger ledger, admin tools).

/** The price dimensions of a ModelPricing body (proto field names), all micro-units of its currency. */
export interface PriceRates {
  readonly inputMicrosPerMtok: number;
  readonly outputMicrosPerMtok: number;
  readonly cachedInputMicrosPerMtok: number;
  readonly cacheWriteMicrosPerMtok: number;
  readonly requestMicros: number;
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

const MTOK = 1_000_000n;

function count(value: number | undefined, name: string): number {
  const n = value ?? 0;
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${name} must be a non-negative integer`);
  return n;
}

function rate(value: number, name: string): bigint {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`${name} must be a non-negative integer`);
  return BigInt(value);
}

/**
 * Micro-units charged for one request: the fixed request price plus every token dimension at its
 * rate. The token part is summed exactly (BigInt) and rounded ONCE, half up, to a whole micro-unit.
 * Cached and cache-write counts are parts of the input count; whatever exceeds it is capped (a
 * provider never bills more cached tokens than input tokens). Throws RangeError on negative or
 * fractional counts or rates, and when the result is not a safe integer.
 */
export function costOf(pricing: PriceRates, usage: TokenCounts): number {
  const input = count(usage.inputTokens, 'inputTokens');
  const output = count(usage.outputTokens, 'outputTokens');
  const cached = Math.min(count(usage.cachedInputTokens, 'cachedInputTokens'), input);
  const write = Math.min(count(usage.cacheWriteInputTokens, 'cacheWriteInputTokens'), input - cached);
  const uncached = input - cached - write;

  const perMillion =
    BigInt(uncached) * rate(pricing.inputMicrosPerMtok, 'inputMicrosPerMtok') +
    BigInt(cached) * rate(pricing.cachedInputMicrosPerMtok, 'cachedInputMicrosPerMtok') +
    BigInt(write) * rate(pricing.cacheWriteMicrosPerMtok, 'cacheWriteMicrosPerMtok') +
    BigInt(output) * rate(pricing.outputMicrosPerMtok, 'outputMicrosPerMtok');
  const total = (perMillion + MTOK / 2n) / MTOK + rate(pricing.requestMicros, 'requestMicros');
  if (total > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError('cost exceeds the safe integer range');
  return Number(total);
}
