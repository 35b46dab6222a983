// Ollama: a local server (`http://localhost:11434`, reachable only through the custom host allowlist).
// The base is the server root, as Ollama users configure it: native `/api/*` paths go as they are and
// every other path is Ollama's OpenAI-compatible API under `/v1`. No auth is needed; a bearer token is
// still passed through for servers behind an authenticating proxy.
import type { ProviderDefinition } from './types.js';
import { bearer, chooseBase, joinUrl } from './upstream-url.js';

const BASE_URL = 'http://localhost:11434';

export const ollama: ProviderDefinition = {
  id: 'ollama',
  baseUrl: BASE_URL,
  needsBody: () => false,
  buildTarget(request) {
    const native = request.path === '/api' || request.path.startsWith('/api/');
    const path = native ? request.path : `/v1${request.path}`;
    return {
      url: joinUrl(chooseBase(request, BASE_URL), path, request.search),
      setHeaders: bearer(request.token),
      removeHeaders: [],
    };
  },
};
