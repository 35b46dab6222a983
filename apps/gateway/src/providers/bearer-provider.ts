// The common provider shape: one documented base URL the gateway path maps onto 1:1, and the
// client's bearer token passed through as `Authorization: Bearer`. Most OpenAI-compatible APIs are this.
import type { ProviderDefinition } from './types.js';
import { bearer, chooseBase, joinUrl } from './upstream-url.js';

export interface BearerProviderOptions {
  readonly id: string;
  /** Base URL without a trailing slash; the gateway path (e.g. `/chat/completions`) is appended to it. */
  readonly baseUrl: string;
}

export function defineBearerProvider(options: BearerProviderOptions): ProviderDefinition {
  return {
    id: options.id,
    baseUrl: options.baseUrl,
    needsBody: () => false,
    buildTarget(request) {
      return {
        url: joinUrl(chooseBase(request, options.baseUrl), request.path, request.search),
        setHeaders: bearer(request.token),
        removeHeaders: [],
      };
    },
  };
}
