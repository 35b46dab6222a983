// Spec 5.1: which of the accepted credential combinations a request uses (besides its API key):
// (a) virtual key, or its replacement `@slug`; (b) provider authorization + provider name;
// (c) config (header, a deployment naming one, or the key's default config); (d) (b) + custom host. Anything else is a
// 400 that names what is missing or what conflicts.
import type { IncomingHttpHeaders } from 'node:http';
import { gatewayError } from '../errors.js';
import { CLOUD_HEADER } from '../providers/cloud-headers.js';
import { getProvider } from '../providers/registry.js';
import { H, type ServiceHeaders } from '../request/service-headers.js';

export type CredentialRoute =
  | { readonly kind: 'config'; readonly value: string; readonly fromKeyDefault: boolean }
  | { readonly kind: 'deployment'; readonly ref: string }
  | { readonly kind: 'virtual_key'; readonly slug: string }
  | { readonly kind: 'managed'; readonly slug: string }
  | { readonly kind: 'headers' };

/** Providers that run without any credential (local or self-hosted servers). */
const NO_CREDENTIAL = new Set(['ollama', 'openai-compatible']);

/** Provider credentials a client may send (converted or passed as the provider expects them). */
const AUTH_HEADERS = ['authorization', 'x-api-key', 'api-key', 'x-goog-api-key'];

/**
 * `enforced`: the key's default config may not be set aside (`defaults.allow_config_override:
 * false`): every request runs it, one naming another config or a deployment is refused (403), and
 * provider headers only serve the config's targets that name no provider.
 */
export function credentialRoute(
  headers: IncomingHttpHeaders,
  service: ServiceHeaders,
  defaultConfigId: string,
  enforced = false,
): CredentialRoute {
  const config = single(headers, H.config);
  const deployment = single(headers, H.deployment);
  if (deployment !== undefined && config !== undefined) {
    throw conflict(
      `send either ${H.deployment} or ${H.config}, not both: a deployment runs its own config`,
      H.deployment,
    );
  }
  const virtualKey = single(headers, H.virtualKey);
  const provider = service.provider;
  const managed = provider?.startsWith('@') === true;
  if (virtualKey !== undefined && provider !== undefined) {
    throw conflict(`send either ${H.virtualKey} or ${H.provider}, not both`, H.virtualKey);
  }
  if ((virtualKey !== undefined || managed) && service.customHost !== undefined) {
    throw conflict(
      `a managed provider's credentials are never sent to ${H.customHost}: set the custom host on the provider instead`,
      H.customHost,
    );
  }
  if (enforced && defaultConfigId !== '') {
    if ((config !== undefined && config !== defaultConfigId) || deployment !== undefined) {
      throw gatewayError(
        'config_override_not_allowed',
        `this API key runs its own default config on every request: send no ${deployment !== undefined ? H.deployment : H.config}`,
        { param: deployment !== undefined ? H.deployment : H.config },
      );
    }
    return { kind: 'config', value: defaultConfigId, fromKeyDefault: true };
  }
  if (deployment !== undefined) return { kind: 'deployment', ref: deployment };
  if (config !== undefined) return { kind: 'config', value: config, fromKeyDefault: false };
  if (virtualKey !== undefined) return { kind: 'virtual_key', slug: virtualKey };
  if (managed && provider !== undefined) return { kind: 'managed', slug: provider.slice(1) };
  if (provider !== undefined) {
    // An unknown name is left to the provider stage's `unknown_provider`.
    const id = getProvider(provider)?.id;
    if (id !== undefined && !NO_CREDENTIAL.has(id) && !hasProviderAuth(headers, id)) {
      throw gatewayError(
        'missing_provider_auth',
        `${H.provider}: ${provider} needs the provider's credential: send Authorization: Bearer <provider key>, or use a managed provider (${H.provider}: @<slug>), a virtual key or a config`,
        { param: 'authorization' },
      );
    }
    return { kind: 'headers' };
  }
  // A custom host alone is a generic OpenAI-compatible server (spec 5.2), as without a control plane.
  if (service.customHost !== undefined) return { kind: 'headers' };
  if (defaultConfigId !== '') return { kind: 'config', value: defaultConfigId, fromKeyDefault: true };
  throw gatewayError(
    'missing_provider',
    `say where to send the request: ${H.provider} (@<slug> for a managed provider, or a provider name with Authorization), ${H.virtualKey} or ${H.config}`,
    { param: H.provider },
  );
}

function hasProviderAuth(headers: IncomingHttpHeaders, provider: string): boolean {
  if (AUTH_HEADERS.some((name) => headers[name] !== undefined && headers[name] !== '')) return true;
  return (
    provider === 'bedrock' &&
    headers[CLOUD_HEADER.bedrockAccessKeyId.toLowerCase()] !== undefined &&
    headers[CLOUD_HEADER.bedrockSecretAccessKey.toLowerCase()] !== undefined
  );
}

function single(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  if (Array.isArray(value))
    throw gatewayError('invalid_header', `${name} must be sent once`, { param: name });
  const text = value?.trim();
  return text === '' ? undefined : text;
}

function conflict(message: string, param: string): Error {
  return gatewayError('conflicting_credentials', message, { param });
}
