// The provider registry: every ProviderDefinition by its `x-service-provider` id, plus accepted aliases.
import { anthropic } from './anthropic.js';
import { azureOpenai } from './azure-openai.js';
import { bedrock } from './bedrock.js';
import { cohere } from './cohere.js';
import { deepseek } from './deepseek.js';
import { fireworksAi } from './fireworks-ai.js';
import { google } from './google.js';
import { groq } from './groq.js';
import { mistralAi } from './mistral-ai.js';
import { ollama } from './ollama.js';
import { openai } from './openai.js';
import { openaiCompatible } from './openai-compatible.js';
import { openrouter } from './openrouter.js';
import { perplexityAi } from './perplexity-ai.js';
import { togetherAi } from './together-ai.js';
import type { ProviderDefinition } from './types.js';
import { vertexAi } from './vertex-ai.js';

export const PROVIDERS: readonly ProviderDefinition[] = [
  openai,
  anthropic,
  azureOpenai,
  vertexAi,
  google,
  bedrock,
  groq,
  mistralAi,
  cohere,
  togetherAi,
  deepseek,
  fireworksAi,
  perplexityAi,
  openrouter,
  ollama,
  openaiCompatible,
];

export const PROVIDER_IDS: readonly string[] = PROVIDERS.map((p) => p.id);

/** Other names clients use for a provider (alias -> id). */
export const PROVIDER_ALIASES: Readonly<Record<string, string>> = {
  azure: 'azure-openai',
  vertex: 'vertex-ai',
  'aws-bedrock': 'bedrock',
  gemini: 'google',
  mistral: 'mistral-ai',
  together: 'together-ai',
  fireworks: 'fireworks-ai',
  perplexity: 'perplexity-ai',
};

const BY_ID = new Map<string, ProviderDefinition>(PROVIDERS.map((p) => [p.id, p]));
const ALIASES = new Map(Object.entries(PROVIDER_ALIASES));

/** The provider for an id or alias, case-insensitively; undefined when unknown. */
export function getProvider(id: string): ProviderDefinition | undefined {
  const key = id.trim().toLowerCase();
  return BY_ID.get(ALIASES.get(key) ?? key);
}
