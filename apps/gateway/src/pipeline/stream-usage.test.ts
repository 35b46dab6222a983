import { describe, expect, it } from 'vitest';
import { streamsUsageOnRequest } from './stream-usage.js';

describe('which requests get include_usage asked on their behalf', () => {
  it('chat and text completions of providers that accept stream_options', () => {
    for (const provider of ['openai', 'deepseek', 'groq', 'together-ai', 'fireworks-ai']) {
      expect([provider, streamsUsageOnRequest('POST', '/chat/completions', provider)]).toEqual([
        provider,
        true,
      ]);
      expect([provider, streamsUsageOnRequest('POST', '/completions', provider)]).toEqual([provider, true]);
    }
  });

  it('never other paths, methods, or providers that may refuse an unknown field', () => {
    expect(streamsUsageOnRequest('POST', '/embeddings', 'openai')).toBe(false);
    expect(streamsUsageOnRequest('GET', '/chat/completions', 'openai')).toBe(false);
    for (const provider of [
      'mistral-ai',
      'anthropic',
      'openai-compatible',
      'ollama',
      'cohere',
      'perplexity-ai',
    ]) {
      expect([provider, streamsUsageOnRequest('POST', '/chat/completions', provider)]).toEqual([
        provider,
        false,
      ]);
    }
  });

  it('Azure from api-version 2024-09-01 on, from the query or the header', () => {
    const path = '/chat/completions';
    expect(streamsUsageOnRequest('POST', path, 'azure-openai', '?api-version=2024-10-21')).toBe(true);
    expect(streamsUsageOnRequest('POST', path, 'azure-openai', '', '2025-04-01-preview')).toBe(true);
    expect(streamsUsageOnRequest('POST', path, 'azure-openai', '?api-version=2024-06-01')).toBe(false);
    expect(streamsUsageOnRequest('POST', path, 'azure-openai', '', '2024-02-15-preview')).toBe(false);
    expect(streamsUsageOnRequest('POST', path, 'azure-openai')).toBe(false);
  });
});
