import { describe, expect, it } from 'vitest';
import { costOf, exactCost, type PriceRates } from './cost.js';

const gpt4o: PriceRates = {
  inputMicrosPerMtok: 2_500_000,
  outputMicrosPerMtok: 10_000_000,
  cachedInputMicrosPerMtok: 1_250_000,
  cacheWriteMicrosPerMtok: 2_500_000,
  requestMicros: 0,
};

describe('costOf', () => {
  it('prices input and output tokens per million', () => {
    // 1000 * 2.5 USD/M + 500 * 10 USD/M = 0.0075 USD = 7500 micros
    expect(costOf(gpt4o, { inputTokens: 1000, outputTokens: 500 })).toBe(7_500);
    expect(costOf(gpt4o, { inputTokens: 1_000_000, outputTokens: 1_000_000 })).toBe(12_500_000);
    expect(costOf(gpt4o, { inputTokens: 0, outputTokens: 0 })).toBe(0);
  });

  it('bills cached input tokens (part of input) at the cached rate', () => {
    // 600 uncached * 2.5 + 400 cached * 1.25 = 1500 + 500 = 2000 micros; + 100 out * 10 = 1000
    expect(costOf(gpt4o, { inputTokens: 1000, outputTokens: 100, cachedInputTokens: 400 })).toBe(3_000);
  });

  it('bills cache writes at their own rate', () => {
    const claude: PriceRates = {
      inputMicrosPerMtok: 3_000_000,
      outputMicrosPerMtok: 15_000_000,
      cachedInputMicrosPerMtok: 300_000,
      cacheWriteMicrosPerMtok: 3_750_000,
      requestMicros: 0,
    };
    // 100 * 3 + 2000 * 0.3 + 1000 * 3.75 + 50 * 15 = 300 + 600 + 3750 + 750
    expect(
      costOf(claude, {
        inputTokens: 3100,
        outputTokens: 50,
        cachedInputTokens: 2000,
        cacheWriteInputTokens: 1000,
      }),
    ).toBe(5_400);
  });

  it('caps cached and cache-write counts at the input count', () => {
    expect(costOf(gpt4o, { inputTokens: 100, outputTokens: 0, cachedInputTokens: 500 })).toBe(
      costOf(gpt4o, { inputTokens: 100, outputTokens: 0, cachedInputTokens: 100 }),
    );
    expect(
      costOf(gpt4o, { inputTokens: 100, outputTokens: 0, cachedInputTokens: 60, cacheWriteInputTokens: 90 }),
    ).toBe(
      costOf(gpt4o, { inputTokens: 100, outputTokens: 0, cachedInputTokens: 60, cacheWriteInputTokens: 40 }),
    );
  });

  it('rounds the token part once, half up, to a whole micro-unit', () => {
    const cheap: PriceRates = { ...gpt4o, inputMicrosPerMtok: 150_000, outputMicrosPerMtok: 600_000 };
    // 1 input token at 0.15/M = 0.15 micros -> 0; 3 tokens = 0.45 -> 0; 4 tokens = 0.6 -> 1
    expect(costOf(cheap, { inputTokens: 1, outputTokens: 0 })).toBe(0);
    expect(costOf(cheap, { inputTokens: 3, outputTokens: 0 })).toBe(0);
    expect(costOf(cheap, { inputTokens: 4, outputTokens: 0 })).toBe(1);
    // exactly half: 0.5 micros rounds up
    const half: PriceRates = { ...gpt4o, inputMicrosPerMtok: 500_000 };
    expect(costOf(half, { inputTokens: 1, outputTokens: 0 })).toBe(1);
    // one rounding of the sum: 0.4 + 0.4 = 0.8 -> 1, where rounding each part would give 0
    const tiny: PriceRates = { ...gpt4o, inputMicrosPerMtok: 400_000, outputMicrosPerMtok: 400_000 };
    expect(costOf(tiny, { inputTokens: 1, outputTokens: 1 })).toBe(1);
  });

  it('adds the fixed request price unrounded', () => {
    const sonar: PriceRates = {
      inputMicrosPerMtok: 1_000_000,
      outputMicrosPerMtok: 1_000_000,
      cachedInputMicrosPerMtok: 1_000_000,
      cacheWriteMicrosPerMtok: 1_000_000,
      requestMicros: 5_000,
    };
    expect(costOf(sonar, { inputTokens: 10, outputTokens: 20 })).toBe(5_030);
    expect(costOf(sonar, { inputTokens: 0, outputTokens: 0 })).toBe(5_000);
  });

  it('stays exact where the sum exceeds 2^53', () => {
    const rates: PriceRates = { ...gpt4o, inputMicrosPerMtok: 987_654_321_987, outputMicrosPerMtok: 333_333 };
    // 123456789 * 987654321987 + 3 * 333333 = 121932631234488119742 (about 2^66), / 1e6 rounded half up
    expect(costOf(rates, { inputTokens: 123_456_789, outputTokens: 3 })).toBe(121_932_631_234_488);
  });

  it('refuses negative or fractional counts and rates, and results beyond the safe range', () => {
    expect(() => costOf(gpt4o, { inputTokens: -1, outputTokens: 0 })).toThrow(RangeError);
    expect(() => costOf(gpt4o, { inputTokens: 1.5, outputTokens: 0 })).toThrow(RangeError);
    expect(() => costOf(gpt4o, { inputTokens: 1, outputTokens: Number.NaN })).toThrow(RangeError);
    expect(() => costOf({ ...gpt4o, requestMicros: -5 }, { inputTokens: 1, outputTokens: 1 })).toThrow(
      RangeError,
    );
    const huge: PriceRates = { ...gpt4o, outputMicrosPerMtok: 1_000_000_000_000 };
    expect(() => costOf(huge, { inputTokens: 0, outputTokens: Number.MAX_SAFE_INTEGER })).toThrow(RangeError);
  });
});

describe('costOf in plain numbers', () => {
  // A small deterministic generator: the same cases on every run.
  let seed = 42;
  const next = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const pick = (scale: number) => Math.floor(next() * scale);

  it('gives exactly what the BigInt computation gives, rounding included', () => {
    for (let i = 0; i < 20_000; i++) {
      const scale = [10, 1_000, 1_000_000, 1e9, 1e12][i % 5] as number;
      const rates: PriceRates = {
        inputMicrosPerMtok: pick(scale),
        outputMicrosPerMtok: pick(scale),
        cachedInputMicrosPerMtok: pick(scale),
        cacheWriteMicrosPerMtok: pick(scale),
        requestMicros: pick(1_000),
      };
      const usage = {
        inputTokens: pick(scale),
        outputTokens: pick(scale),
        cachedInputTokens: pick(scale),
        cacheWriteInputTokens: pick(scale),
      };
      let exact: number | Error;
      try {
        exact = exactCost(rates, usage);
      } catch (err) {
        exact = err as Error;
      }
      if (exact instanceof Error) expect(() => costOf(rates, usage)).toThrow(exact.message);
      else expect(costOf(rates, usage)).toBe(exact);
    }
  });

  it('rounds a half micro-unit up and just under it down', () => {
    const perToken: PriceRates = {
      inputMicrosPerMtok: 1,
      outputMicrosPerMtok: 0,
      cachedInputMicrosPerMtok: 0,
      cacheWriteMicrosPerMtok: 0,
      requestMicros: 0,
    };
    expect(costOf(perToken, { inputTokens: 500_000, outputTokens: 0 })).toBe(1);
    expect(costOf(perToken, { inputTokens: 499_999, outputTokens: 0 })).toBe(0);
    expect(costOf(perToken, { inputTokens: 1_500_000, outputTokens: 0 })).toBe(2);
  });

  it('leaves products past the safe integer range to the BigInt computation', () => {
    const dear: PriceRates = { ...gpt4o, inputMicrosPerMtok: 2 ** 40 };
    const usage = { inputTokens: 2 ** 20, outputTokens: 3 };
    // (2^40 * 2^20 + 3 * 10,000,000) / 1,000,000 = 1,152,921,504,636.846976: 2^60 is not a safe integer.
    expect(costOf(dear, usage)).toBe(1_152_921_504_637);
  });
});
