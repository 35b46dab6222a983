// Groq: OpenAI-compatible API under `https://api.groq.com/openai/v1`; the gateway path maps 1:1.
import { defineBearerProvider } from './bearer-provider.js';

export const groq = defineBearerProvider({ id: 'groq', baseUrl: 'https://api.groq.com/openai/v1' });
