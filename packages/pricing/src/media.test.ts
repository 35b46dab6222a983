import { describe, expect, it } from 'vitest';
import { costOf, type PriceRates } from './cost.js';
import { extraPrices, imagePrice } from './media.js';

const ZERO: PriceRates = {
  inputMicrosPerMtok: 0,
  outputMicrosPerMtok: 0,
  cachedInputMicrosPerMtok: 0,
  cacheWriteMicrosPerMtok: 0,
  requestMicros: 0,
};
const withExtra = (extra: Record<string, number>, rates: Partial<PriceRates> = {}): PriceRates => ({
  ...ZERO,
  ...rates,
  extraJson: JSON.stringify(extra),
});
const NO_TOKENS = { inputTokens: 0, outputTokens: 0 };

// dall-e-3's list prices in micro-USD
const dalle3 = withExtra({
  per_image_standard_1024x1024: 40_000,
  per_image_standard_1024x1792: 80_000,
  per_image_hd_1024x1024: 80_000,
  per_image_hd_1024x1792: 120_000,
});

describe('imagePrice', () => {
  const extra = { per_image_hd_1024x1792: 3, per_image_1024x1792: 2, per_image: 1 };
  it('looks up quality and size, then size, then any image', () => {
    expect(imagePrice(extra, 'hd', '1024x1792')).toBe(3);
    expect(imagePrice(extra, 'HD', '1024X1792')).toBe(3);
    expect(imagePrice(extra, 'standard', '1024x1792')).toBe(2);
    expect(imagePrice(extra, undefined, '1024x1792')).toBe(2);
    expect(imagePrice(extra, 'hd', '256x256')).toBe(1);
    expect(imagePrice(extra, 'hd', undefined)).toBe(1);
    expect(imagePrice({ per_image_1024x1792: 2 }, 'hd', '512x512')).toBeUndefined();
  });

  it('never builds a key from parts that are not plain words', () => {
    expect(imagePrice({ per_image_a_b_c: 9, per_image: 1 }, 'a_b', 'c')).toBe(1);
    expect(imagePrice({ per_image_: 9 }, '', '')).toBeUndefined();
  });
});

describe('extraPrices', () => {
  it("reads extra_json's numbers and treats '' or junk as no prices", () => {
    expect(extraPrices('{"per_image":4800,"note":"x"}')).toEqual({ per_image: 4800 });
    expect(extraPrices('')).toEqual({});
    expect(extraPrices(undefined)).toEqual({});
    expect(extraPrices('not json')).toEqual({});
    expect(extraPrices('[1,2]')).toEqual({});
  });
});

describe('costOf with media units', () => {
  it('charges n images at the price of their quality and size', () => {
    expect(
      costOf(dalle3, { ...NO_TOKENS, images: 1, imageQuality: 'standard', imageSize: '1024x1024' }),
    ).toBe(40_000);
    expect(costOf(dalle3, { ...NO_TOKENS, images: 3, imageQuality: 'hd', imageSize: '1024x1792' })).toBe(
      360_000,
    );
    // no price for this size, and no per-size or per-image fallback: images cost 0
    expect(costOf(dalle3, { ...NO_TOKENS, images: 2, imageQuality: 'hd', imageSize: '256x256' })).toBe(0);
    // dall-e-2 is priced by size only: the quality key misses, the size key hits
    const dalle2 = withExtra({ per_image_256x256: 16_000, per_image_1024x1024: 20_000 });
    expect(costOf(dalle2, { ...NO_TOKENS, images: 2, imageQuality: 'standard', imageSize: '256x256' })).toBe(
      32_000,
    );
  });

  it('adds image prices to token usage (gpt-image-1 reports both)', () => {
    const rates = withExtra(
      { per_image: 10_000 },
      { inputMicrosPerMtok: 5_000_000, outputMicrosPerMtok: 40_000_000 },
    );
    // 10 in * 5 USD/M + 1056 out * 40 USD/M = 50 + 42240 micros; + 2 images * 10000
    expect(costOf(rates, { inputTokens: 10, outputTokens: 1056, images: 2 })).toBe(62_290);
  });

  it('charges speech characters per million, rounded once with the tokens', () => {
    const tts1 = withExtra({ per_mchar: 15_000_000 });
    // 1000 characters at 15 USD per million = 0.015 USD
    expect(costOf(tts1, { ...NO_TOKENS, characters: 1000 })).toBe(15_000);
    // 1 character = 15 micros exactly; at 0.3 USD/M 1 character = 0.3 micros -> 0, 2 -> 0.6 -> 1
    expect(costOf(tts1, { ...NO_TOKENS, characters: 1 })).toBe(15);
    const cheap = withExtra({ per_mchar: 300_000 });
    expect(costOf(cheap, { ...NO_TOKENS, characters: 1 })).toBe(0);
    expect(costOf(cheap, { ...NO_TOKENS, characters: 2 })).toBe(1);
    // one rounding over tokens and characters: 0.4 + 0.3 = 0.7 -> 1
    const both = withExtra({ per_mchar: 300_000 }, { inputMicrosPerMtok: 400_000 });
    expect(costOf(both, { inputTokens: 1, outputTokens: 0, characters: 1 })).toBe(1);
  });

  it('charges audio seconds per minute, else per hour, exactly', () => {
    const whisper = withExtra({ per_audio_minute: 6_000 });
    // 0.006 USD a minute: 1 second = 100 micros; 61 seconds = 6100
    expect(costOf(whisper, { ...NO_TOKENS, audioSeconds: 1 })).toBe(100);
    expect(costOf(whisper, { ...NO_TOKENS, audioSeconds: 61 })).toBe(6_100);
    const groq = withExtra({ per_audio_hour: 111_000 });
    // 0.111 USD an hour: 1 second = 30.8333 -> 31; 3600 seconds = 111000; 10 s = 308.33 -> 308
    expect(costOf(groq, { ...NO_TOKENS, audioSeconds: 1 })).toBe(31);
    expect(costOf(groq, { ...NO_TOKENS, audioSeconds: 3600 })).toBe(111_000);
    expect(costOf(groq, { ...NO_TOKENS, audioSeconds: 10 })).toBe(308);
    // per minute wins when a row has both
    expect(
      costOf(withExtra({ per_audio_minute: 6_000, per_audio_hour: 1 }), { ...NO_TOKENS, audioSeconds: 60 }),
    ).toBe(6_000);
    // exactly half a micro rounds up: 60 seconds at 30 micros an hour = 0.5 -> 1
    expect(costOf(withExtra({ per_audio_hour: 30 }), { ...NO_TOKENS, audioSeconds: 60 })).toBe(1);
  });

  it('a row without the unit prices it at 0, and units without a row are refused as bad counts only', () => {
    expect(costOf(ZERO, { ...NO_TOKENS, images: 5, characters: 100, audioSeconds: 100 })).toBe(0);
    expect(() => costOf(dalle3, { ...NO_TOKENS, images: -1 })).toThrow(RangeError);
    expect(() => costOf(dalle3, { ...NO_TOKENS, audioSeconds: 1.5 })).toThrow(RangeError);
    expect(() => costOf(withExtra({ per_image: -3 }), { ...NO_TOKENS, images: 1 })).toThrow(RangeError);
    expect(() => costOf(withExtra({ per_mchar: 0.5 }), { ...NO_TOKENS, characters: 1 })).toThrow(RangeError);
  });
});
