import { describe, expect, it } from 'vitest';
import { countTokens, embeddingVector, splitChunks, truncateTokens } from './text.js';

describe('text helpers', () => {
  it('counts whitespace-separated words as tokens', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('   ')).toBe(0);
    expect(countTokens('one')).toBe(1);
    expect(countTokens('  two\twords\n and three ')).toBe(4);
  });

  it('truncates to the first n tokens keeping the original spacing', () => {
    expect(truncateTokens('a  b c d', 2)).toEqual({ text: 'a  b', truncated: true });
    expect(truncateTokens('a b', 2)).toEqual({ text: 'a b', truncated: false });
    expect(truncateTokens('a b', undefined)).toEqual({ text: 'a b', truncated: false });
  });

  it('splits into one piece per word by default and into exactly n pieces on request', () => {
    expect(splitChunks('hello big world', undefined)).toEqual(['hello ', 'big ', 'world']);
    expect(splitChunks('  padded  ', undefined)).toEqual(['  padded  ']);
    expect(splitChunks('', undefined)).toEqual(['']);
    const pieces = splitChunks('abcdefghij', 3);
    expect(pieces).toHaveLength(3);
    expect(pieces.join('')).toBe('abcdefghij');
    expect(splitChunks('ab', 5)).toHaveLength(5);
    expect(splitChunks('ab', 5).join('')).toBe('ab');
  });

  it('derives unit-length embedding vectors from the text alone', () => {
    const a = embeddingVector('same text', 64);
    expect(a).toHaveLength(64);
    expect(embeddingVector('same text', 64)).toEqual(a);
    expect(embeddingVector('other text', 64)).not.toEqual(a);
    const norm = Math.sqrt(a.reduce((s, v) => s + v * v, 0));
    expect(norm).toBeCloseTo(1, 10);
    expect(Math.sqrt(embeddingVector('!?', 8).reduce((s, v) => s + v * v, 0))).toBeCloseTo(1, 10);
  });

  it('gives texts sharing most words a high cosine and unrelated texts a low one', () => {
    const dot = (a: number[], b: number[]) => a.reduce((sum, v, i) => sum + v * (b[i] ?? 0), 0);
    const question = embeddingVector('What is the capital of France?', 1536);
    expect(dot(question, embeddingVector('what is the CAPITAL city of France', 1536))).toBeGreaterThan(0.9);
    expect(dot(question, embeddingVector('How do I bake sourdough bread', 1536))).toBeLessThan(0.2);
  });
});
