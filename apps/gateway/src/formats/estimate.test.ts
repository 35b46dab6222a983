import { countTokens as cl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as o200k } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { encodingFor, estimateTokens, estimateUsage } from './estimate.js';

// A text whose count differs between the two encodings (o200k merges more of it).
const text = 'Estimating tokens für Überweisungen — 日本語のテキスト, code: `const x = await f(y);`\n'.repeat(
  8,
);

describe('encodingFor', () => {
  it('picks o200k for gpt-4o, gpt-4.1, gpt-5 and the o-series, cl100k for older OpenAI models', () => {
    for (const model of [
      'gpt-4o',
      'gpt-4o-mini-2024-07-18',
      'gpt-4.1',
      'gpt-4.5-preview',
      'gpt-5',
      'o1',
      'o3-mini',
      'o4-mini',
      'openai/gpt-4o',
    ]) {
      expect(encodingFor(model), model).toBe('o200k_base');
    }
    for (const model of [
      'gpt-4',
      'gpt-4-turbo',
      'gpt-4-0613',
      'gpt-3.5-turbo',
      'text-embedding-3-small',
      'text-embedding-ada-002',
    ]) {
      expect(encodingFor(model), model).toBe('cl100k_base');
    }
  });

  it('approximates every other model with o200k', () => {
    for (const model of [
      'claude-sonnet-4-20250514',
      'gemini-2.0-flash',
      'anthropic.claude-3-5-sonnet-20240620-v1:0',
      '',
    ]) {
      expect(encodingFor(model)).toBe('o200k_base');
    }
  });
});

describe('estimateUsage', () => {
  it('counts with the model family encoding and marks the usage estimated', async () => {
    expect(o200k(text)).not.toBe(cl100k(text));
    expect(await estimateTokens(text, 'gpt-4o')).toBe(o200k(text));
    expect(await estimateTokens(text, 'gpt-4')).toBe(cl100k(text));
    const usage = await estimateUsage({
      model: 'gpt-4o-mini',
      inputText: text,
      outputText: 'Sure, here it is.',
    });
    expect(usage).toEqual({
      inputTokens: o200k(text),
      outputTokens: o200k('Sure, here it is.'),
      totalTokens: o200k(text) + o200k('Sure, here it is.'),
      cachedInputTokens: 0,
      estimated: true,
    });
  });

  it('reads special-token text as plain text instead of throwing', async () => {
    expect(await estimateTokens('a <|endoftext|> b', 'gpt-4o')).toBeGreaterThan(3);
  });

  it('gives an empty text no tokens, and any text at least one', async () => {
    const usage = await estimateUsage({ model: 'claude-3-haiku', inputText: 'hi', outputText: '' });
    expect(usage).toMatchObject({ inputTokens: 1, outputTokens: 0, totalTokens: 1, estimated: true });
  });
});
