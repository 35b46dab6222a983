// Cohere: `https://api.cohere.com` with the API version in the path, so the gateway path carries it
// (`/v2/chat`, `/v2/embed`, `/v2/rerank`): exactly what Cohere's SDKs send when their base URL is the gateway's.
import { defineBearerProvider } from './bearer-provider.js';

export const cohere = defineBearerProvider({ id: 'cohere', baseUrl: 'https://api.cohere.com' });
