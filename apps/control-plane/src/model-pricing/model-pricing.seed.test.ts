import { costOf, matchPricing } from '@aigw/pricing';
import { describe, expect, it } from 'vitest';
import { PLATFORM_SEED, parseSeed, type SeedPrice } from './model-pricing.seed.js';
import seedFile from './seed-prices.json' with { type: 'json' };

const rates = (p: SeedPrice) => ({
  inputMicrosPerMtok: p.input_micros_per_mtok,
  outputMicrosPerMtok: p.output_micros_per_mtok,
  cachedInputMicrosPerMtok: p.cached_input_micros_per_mtok,
  cacheWriteMicrosPerMtok: p.cache_write_micros_per_mtok,
  requestMicros: p.request_micros,
});

function priceOf(aiProvider: string, model: string): SeedPrice | undefined {
  const keyed = PLATFORM_SEED.prices.map((p) => ({ ...p, organisationId: '', aiProvider: p.ai_provider }));
  return matchPricing(keyed, '', aiProvider, model);
}

describe('seed-prices.json', () => {
  it('covers the common models of every registered provider, with a source and a date', () => {
    const providers = new Set(PLATFORM_SEED.prices.map((p) => p.ai_provider));
    for (const provider of [
      'openai',
      'anthropic',
      'azure-openai',
      'bedrock',
      'vertex-ai',
      'groq',
      'mistral-ai',
      'cohere',
      'together-ai',
      'deepseek',
      'fireworks-ai',
      'perplexity-ai',
      'ollama',
    ]) {
      expect(providers.has(provider), provider).toBe(true);
      expect(seedFile.providers[provider as keyof typeof seedFile.providers].source).not.toBe('');
    }
    expect(PLATFORM_SEED.asOf).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(PLATFORM_SEED.prices.every((p) => p.currency === 'USD')).toBe(true);
  });

  it('stores exact micro-units and defaults cache prices to the input price', () => {
    expect(priceOf('openai', 'gpt-4o-2024-08-06')).toMatchObject({
      model: 'gpt-4o*',
      input_micros_per_mtok: 2_500_000,
      cached_input_micros_per_mtok: 1_250_000,
      cache_write_micros_per_mtok: 2_500_000,
      output_micros_per_mtok: 10_000_000,
      request_micros: 0,
    });
    expect(priceOf('openai', 'gpt-4o-mini')?.model).toBe('gpt-4o-mini*');
    expect(priceOf('anthropic', 'claude-sonnet-4-20250514')?.cache_write_micros_per_mtok).toBe(3_750_000);
    expect(priceOf('perplexity-ai', 'sonar')?.request_micros).toBe(5_000);
    expect(priceOf('groq', 'whisper-large-v3')?.extra).toEqual({ per_audio_hour: 111_000 });
  });

  it("prices OpenAI's image and audio models by their extra units, at list prices", () => {
    const withExtra = (model: string) => {
      const p = priceOf('openai', model);
      expect(p?.model, model).toBe(model);
      return { ...rates(p!), extraJson: JSON.stringify(p?.extra) };
    };
    const none = { inputTokens: 0, outputTokens: 0 };
    const dalle2 = withExtra('dall-e-2');
    expect(costOf(dalle2, { ...none, images: 1, imageQuality: 'standard', imageSize: '256x256' })).toBe(
      16_000,
    );
    expect(costOf(dalle2, { ...none, images: 1, imageQuality: 'standard', imageSize: '512x512' })).toBe(
      18_000,
    );
    expect(costOf(dalle2, { ...none, images: 2, imageQuality: 'standard', imageSize: '1024x1024' })).toBe(
      40_000,
    );
    const dalle3 = withExtra('dall-e-3');
    const d3 = (quality: string, size: string) =>
      costOf(dalle3, { ...none, images: 1, imageQuality: quality, imageSize: size });
    expect([d3('standard', '1024x1024'), d3('standard', '1024x1792'), d3('standard', '1792x1024')]).toEqual([
      40_000, 80_000, 80_000,
    ]);
    expect([d3('hd', '1024x1024'), d3('hd', '1024x1792'), d3('hd', '1792x1024')]).toEqual([
      80_000, 120_000, 120_000,
    ]);
    expect(priceOf('openai', 'gpt-image-1')).toMatchObject({
      input_micros_per_mtok: 5_000_000,
      cached_input_micros_per_mtok: 1_250_000,
      output_micros_per_mtok: 40_000_000,
    });
    // a million characters of speech: 15 USD (tts-1), 30 USD (tts-1-hd)
    expect(costOf(withExtra('tts-1'), { ...none, characters: 1_000_000 })).toBe(15_000_000);
    expect(costOf(withExtra('tts-1-hd'), { ...none, characters: 1_000_000 })).toBe(30_000_000);
    // a minute of whisper-1: 0.006 USD
    expect(costOf(withExtra('whisper-1'), { ...none, audioSeconds: 60 })).toBe(6_000);
  });

  it('prices ollama at zero', () => {
    const ollama = priceOf('ollama', 'llama3.1:8b');
    expect(ollama).toBeDefined();
    expect(costOf(rates(ollama!), { inputTokens: 123_456, outputTokens: 654_321 })).toBe(0);
  });

  it('refuses a malformed seed naming the bad field, and duplicates', () => {
    const base: Record<string, unknown> = structuredClone(seedFile);
    base.providers = {
      openai: { source: 'x', prices: [{ model: 'a', input_per_mtok: -1, output_per_mtok: 0 }] },
    };
    expect(() => parseSeed(base)).toThrow(/providers\.openai\.prices\.0\.input_per_mtok/);
    base.providers = {
      nope: { source: 'x', prices: [{ model: 'a', input_per_mtok: 1, output_per_mtok: 0 }] },
    };
    expect(() => parseSeed(base)).toThrow(/invalid model price seed/);
    const twice = { model: 'a', input_per_mtok: 1, output_per_mtok: 0 };
    base.providers = { openai: { source: 'x', prices: [twice, twice] } };
    expect(() => parseSeed(base)).toThrow(/openai a is listed twice/);
  });
});
