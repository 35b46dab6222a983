// Mistral AI: `https://api.mistral.ai/v1` (`/chat/completions`, `/embeddings`, `/fim/completions`); 1:1.
import { defineBearerProvider } from './bearer-provider.js';

export const mistralAi = defineBearerProvider({ id: 'mistral-ai', baseUrl: 'https://api.mistral.ai/v1' });
