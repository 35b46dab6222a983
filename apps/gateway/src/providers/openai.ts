// OpenAI: `https://api.openai.com/v1`; the gateway path maps 1:1 (`/chat/completions`, `/files`, ...).
import { defineBearerProvider } from './bearer-provider.js';

export const openai = defineBearerProvider({ id: 'openai', baseUrl: 'https://api.openai.com/v1' });
