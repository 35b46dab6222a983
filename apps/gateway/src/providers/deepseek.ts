// DeepSeek: `https://api.deepseek.com` serves the OpenAI paths at its root (`/chat/completions`); 1:1.
import { defineBearerProvider } from './bearer-provider.js';

export const deepseek = defineBearerProvider({ id: 'deepseek', baseUrl: 'https://api.deepseek.com' });
