// Anthropic: `https://api.anthropic.com/v1` (`/messages`, `/messages/count_tokens`, ...; 1:1). The bearer
// token becomes `x-api-key`, and `anthropic-version` is always sent because the API refuses calls without it.
import type { ProviderDefinition } from './types.js';
import { chooseBase, joinUrl } from './upstream-url.js';

const BASE_URL = 'https://api.anthropic.com/v1';
export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

function header(value: string | string[] | undefined): string | undefined {
  const single = Array.isArray(value) ? value.join(',') : value;
  return single === undefined || single.trim() === '' ? undefined : single;
}

export const anthropic: ProviderDefinition = {
  id: 'anthropic',
  baseUrl: BASE_URL,
  needsBody: () => false,
  buildTarget(request) {
    const setHeaders: Record<string, string> = {
      // The gateway option wins over what the client sent, like every x-service-* setting.
      'anthropic-version':
        request.cloud.anthropicVersion ??
        header(request.headers['anthropic-version']) ??
        DEFAULT_ANTHROPIC_VERSION,
    };
    if (request.cloud.anthropicBeta !== undefined) setHeaders['anthropic-beta'] = request.cloud.anthropicBeta;
    // Without a bearer token a client-sent `x-api-key` (Claude Code does this) passes through as it is.
    if (request.token !== undefined) setHeaders['x-api-key'] = request.token;
    return {
      url: joinUrl(chooseBase(request, BASE_URL), request.path, request.search),
      setHeaders,
      removeHeaders: ['authorization'],
    };
  },
};
