import { describe, expect, it } from 'vitest';
import { matchPricing, type PricingKey, specificity } from './match.js';

const ORG = '0b1e7a4e-8c1b-4d5e-9f00-123456789abc';
const OTHER = '9c2d7a4e-8c1b-4d5e-9f00-123456789abc';

interface Row extends PricingKey {
  readonly name: string;
}

const row = (name: string, organisationId: string, aiProvider: string, model: string): Row => ({
  name,
  organisationId,
  aiProvider,
  model,
});

const rows: Row[] = [
  row('platform gpt-4o*', '', 'openai', 'gpt-4o*'),
  row('platform gpt-4o-mini*', '', 'openai', 'gpt-4o-mini*'),
  row('platform gpt-4o-2024-05-13', '', 'openai', 'gpt-4o-2024-05-13'),
  row('platform azure gpt-4o*', '', 'azure-openai', 'gpt-4o*'),
  row('platform ollama *', '', 'ollama', '*'),
  row('org gpt-4o*', ORG, 'openai', 'gpt-4o*'),
  row('other org gpt-4o-2024-08-06', OTHER, 'openai', 'gpt-4o-2024-08-06'),
];

const match = (org: string, provider: string, model: string) =>
  matchPricing(rows, org, provider, model)?.name;

describe('specificity', () => {
  it('ranks exact above every prefix and longer prefixes above shorter ones', () => {
    expect(specificity('gpt-4o', 'gpt-4o')).toBeGreaterThan(specificity('gpt-4o*', 'gpt-4o'));
    expect(specificity('gpt-4o-mini*', 'gpt-4o-mini-2024')).toBeGreaterThan(
      specificity('gpt-4o*', 'gpt-4o-mini-2024'),
    );
    expect(specificity('*', 'anything')).toBe(0);
    expect(specificity('gpt-4o', 'gpt-4o-mini')).toBe(-1);
    expect(specificity('gpt-4o-mini*', 'gpt-4o')).toBe(-1);
  });
});

describe('matchPricing', () => {
  it('prefers an exact model over any prefix', () => {
    expect(match('', 'openai', 'gpt-4o-2024-05-13')).toBe('platform gpt-4o-2024-05-13');
    expect(match(ORG, 'openai', 'gpt-4o-2024-05-13')).toBe('platform gpt-4o-2024-05-13');
  });

  it('prefers the longest matching prefix', () => {
    expect(match('', 'openai', 'gpt-4o-mini-2024-07-18')).toBe('platform gpt-4o-mini*');
    expect(match('', 'openai', 'gpt-4o-2024-08-06')).toBe('platform gpt-4o*');
    expect(match('', 'openai', 'gpt-4o')).toBe('platform gpt-4o*');
  });

  it("prefers the organisation's row over the platform row of the same pattern", () => {
    expect(match(ORG, 'openai', 'gpt-4o-2024-08-06')).toBe('org gpt-4o*');
    // the organisation's broader prefix does not hide a more specific platform row
    expect(match(ORG, 'openai', 'gpt-4o-mini')).toBe('platform gpt-4o-mini*');
  });

  it("ignores other organisations' rows", () => {
    expect(match(ORG, 'openai', 'gpt-4o-2024-08-06')).toBe('org gpt-4o*');
    expect(match('', 'openai', 'gpt-4o-2024-08-06')).toBe('platform gpt-4o*');
    expect(match(OTHER, 'openai', 'gpt-4o-2024-08-06')).toBe('other org gpt-4o-2024-08-06');
  });

  it('matches the provider case-insensitively and the model exactly', () => {
    expect(match('', ' Azure-OpenAI ', 'gpt-4o')).toBe('platform azure gpt-4o*');
    expect(match('', 'openai', 'GPT-4o')).toBeUndefined();
    expect(match('', 'anthropic', 'gpt-4o')).toBeUndefined();
  });

  it('a lone * prices every model of its provider', () => {
    expect(match(ORG, 'ollama', 'llama3.2:latest')).toBe('platform ollama *');
  });

  it('returns undefined when nothing matches', () => {
    expect(match(ORG, 'openai', 'o3')).toBeUndefined();
    expect(matchPricing([], ORG, 'openai', 'gpt-4o')).toBeUndefined();
  });
});
