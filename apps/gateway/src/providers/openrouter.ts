// OpenRouter: OpenAI-compatible API under `https://openrouter.ai/api/v1`; the gateway path maps 1:1.
import { defineBearerProvider } from './bearer-provider.js';

export const openrouter = defineBearerProvider({ id: 'openrouter', baseUrl: 'https://openrouter.ai/api/v1' });
