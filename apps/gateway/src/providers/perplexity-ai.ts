// Perplexity: `https://api.perplexity.ai` serves `/chat/completions` at its root (no version segment); 1:1.
import { defineBearerProvider } from './bearer-provider.js';

export const perplexityAi = defineBearerProvider({
  id: 'perplexity-ai',
  baseUrl: 'https://api.perplexity.ai',
});
