// Which provider a request is for, and its provider token: shared by HTTP and WebSocket requests.
import { gatewayError } from '../errors.js';
import { getProvider } from '../providers/registry.js';
import type { ProviderDefinition } from '../providers/types.js';
import { H } from '../request/service-headers.js';

/** The provider named by `x-service-provider`; a custom host alone means `openai-compatible`. */
export function resolveProvider(name: string | undefined, hasCustomHost: boolean): ProviderDefinition {
  if (name?.startsWith('@')) {
    throw gatewayError(
      'unknown_provider',
      `managed provider ${name} needs a control plane (CONTROL_PLANE_GRPC_URL)`,
      {
        param: H.provider,
      },
    );
  }
  if (name === undefined) {
    if (hasCustomHost) return getProvider('openai-compatible') as ProviderDefinition;
    throw gatewayError('missing_provider', `send ${H.provider} (and Authorization) to choose a provider`, {
      param: H.provider,
    });
  }
  const provider = getProvider(name);
  if (!provider) throw gatewayError('unknown_provider', `unknown provider "${name}"`, { param: H.provider });
  return provider;
}

/** The token of `Authorization: Bearer <token>`. */
export function bearer(value: string | undefined): string | undefined {
  const match = value?.match(/^Bearer\s+(.+)$/i);
  return match?.[1]?.trim();
}
