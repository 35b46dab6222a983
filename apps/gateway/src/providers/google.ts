// Google AI Studio (the Gemini API): `https://generativelanguage.googleapis.com`, the path carrying
// the API version as Google's SDKs send it (`/v1beta/models/<model>:generateContent`, 1:1). The bearer
// token becomes `x-goog-api-key`; a client-sent `x-goog-api-key` passes through as it is.
import type { ProviderDefinition } from './types.js';
import { chooseBase, joinUrl } from './upstream-url.js';

const BASE_URL = 'https://generativelanguage.googleapis.com';

export const google: ProviderDefinition = {
  id: 'google',
  baseUrl: BASE_URL,
  needsBody: () => false,
  buildTarget(request) {
    const setHeaders: Record<string, string> = {};
    if (request.token !== undefined) setHeaders['x-goog-api-key'] = request.token;
    return {
      url: joinUrl(chooseBase(request, BASE_URL), request.path, request.search),
      setHeaders,
      removeHeaders: ['authorization'],
    };
  },
};
