// Together AI: OpenAI-compatible API under `https://api.together.xyz/v1`; the gateway path maps 1:1.
import { defineBearerProvider } from './bearer-provider.js';

export const togetherAi = defineBearerProvider({ id: 'together-ai', baseUrl: 'https://api.together.xyz/v1' });
