// Usage parts from several events folded into one record: later non-zero counts win (Anthropic's
// message_delta and Gemini's chunks repeat running totals), the total defaults to input + output.
import type { Usage, UsagePart } from './types.js';

const KEYS = [
  'inputTokens',
  'outputTokens',
  'totalTokens',
  'cachedInputTokens',
  'cacheWriteInputTokens',
] as const;

export function mergeUsage(into: UsagePart, next: UsagePart): void {
  for (const key of KEYS) {
    const value = next[key];
    if (value) into[key] = value;
  }
}

export function completeUsage(found: UsagePart, estimated = false): Usage {
  const input = found.inputTokens ?? 0;
  const output = found.outputTokens ?? 0;
  const usage: Usage = {
    inputTokens: input,
    outputTokens: output,
    totalTokens: Math.max(found.totalTokens ?? 0, input + output),
    cachedInputTokens: found.cachedInputTokens ?? 0,
    estimated,
  };
  if (found.cacheWriteInputTokens) usage.cacheWriteInputTokens = found.cacheWriteInputTokens;
  return usage;
}
