// Fireworks AI: OpenAI-compatible inference API under `https://api.fireworks.ai/inference/v1`; 1:1.
import { defineBearerProvider } from './bearer-provider.js';

export const fireworksAi = defineBearerProvider({
  id: 'fireworks-ai',
  baseUrl: 'https://api.fireworks.ai/inference/v1',
});
