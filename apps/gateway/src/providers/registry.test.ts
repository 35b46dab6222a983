import { describe, expect, it } from 'vitest';
import { getProvider, PROVIDER_ALIASES, PROVIDER_IDS, PROVIDERS } from './registry.js';

describe('provider registry', () => {
  it('registers every provider once under a lower-case id', () => {
    expect(new Set(PROVIDER_IDS).size).toBe(PROVIDER_IDS.length);
    expect(PROVIDER_IDS).toEqual(PROVIDER_IDS.map((id) => id.toLowerCase()));
    expect([...PROVIDER_IDS].sort()).toEqual(
      [
        'anthropic',
        'azure-openai',
        'bedrock',
        'cohere',
        'deepseek',
        'fireworks-ai',
        'google',
        'groq',
        'mistral-ai',
        'ollama',
        'openai',
        'openai-compatible',
        'openrouter',
        'perplexity-ai',
        'together-ai',
        'vertex-ai',
      ].sort(),
    );
  });

  it('finds providers by id case-insensitively', () => {
    for (const provider of PROVIDERS) {
      expect(getProvider(provider.id)).toBe(provider);
      expect(getProvider(provider.id.toUpperCase())).toBe(provider);
    }
    expect(getProvider(' OpenAI ')?.id).toBe('openai');
  });

  it('resolves aliases to real providers', () => {
    expect(getProvider('azure')?.id).toBe('azure-openai');
    expect(getProvider('Vertex')?.id).toBe('vertex-ai');
    expect(getProvider('aws-bedrock')?.id).toBe('bedrock');
    expect(getProvider('mistral')?.id).toBe('mistral-ai');
    expect(getProvider('together')?.id).toBe('together-ai');
    expect(getProvider('fireworks')?.id).toBe('fireworks-ai');
    expect(getProvider('perplexity')?.id).toBe('perplexity-ai');
    for (const [alias, id] of Object.entries(PROVIDER_ALIASES)) {
      expect(PROVIDER_IDS, alias).toContain(id);
      expect(PROVIDER_IDS, alias).not.toContain(alias);
    }
  });

  it('answers undefined for unknown names, prototype keys included', () => {
    expect(getProvider('nope')).toBeUndefined();
    expect(getProvider('')).toBeUndefined();
    expect(getProvider('constructor')).toBeUndefined();
    expect(getProvider('__proto__')).toBeUndefined();
  });
});
