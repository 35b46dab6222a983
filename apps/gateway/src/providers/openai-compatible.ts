// The generic OpenAI-compatible type (spec 5.2): used when a custom host's provider type is unknown.
// It has no default upstream, so a custom host is required; the gateway path is appended to it 1:1.
import { gatewayError } from '../errors.js';
import type { ProviderDefinition } from './types.js';
import { bearer, customBase, joinUrl } from './upstream-url.js';

export const openaiCompatible: ProviderDefinition = {
  id: 'openai-compatible',
  baseUrl: '',
  needsBody: () => false,
  buildTarget(request) {
    if (!request.customHost) {
      throw gatewayError('bad_request', 'provider openai-compatible needs x-service-custom-host', {
        param: 'x-service-custom-host',
      });
    }
    return {
      url: joinUrl(customBase(request.customHost), request.path, request.search),
      setHeaders: bearer(request.token),
      removeHeaders: [],
    };
  },
};
