// `x-service-config`: an inline JSON config, validated by @aigw/config-schema and kept parsed for
// the next request that sends the same text. With a control plane (`managed` mode) saved configs
// (auth/saved-config.ts), `@slug` providers, virtual keys and saved guardrails resolve from the snapshot.
import type { IncomingHttpHeaders } from 'node:http';
import {
  type ConfigNode,
  configErrorMessage,
  type Guardrail,
  type NormalisedConfig,
  parseConfigJson,
} from '@aigw/config-schema';
import { gatewayError } from '../errors.js';
import { H } from './service-headers.js';

/** Distinct config texts kept parsed; a client sends the same config on every call. */
const MAX_CACHED = 256;

/** `managed`: a control-plane snapshot resolves `@slug` providers, virtual keys and saved guardrails. */
export type ConfigMode = 'standalone' | 'managed';

/** Per mode: a text accepted with a snapshot is not acceptable without one. */
const parsed: Record<ConfigMode, Map<string, NormalisedConfig>> = {
  standalone: new Map(),
  managed: new Map(),
};

/** The config of a request, or undefined when it sends none. Throws the gateway's 400s. */
export function readConfigHeader(headers: IncomingHttpHeaders): NormalisedConfig | undefined {
  const value = headers[H.config];
  if (value === undefined) return undefined;
  if (Array.isArray(value)) {
    throw gatewayError('invalid_header', `${H.config} must be sent once`, { param: H.config });
  }
  const text = value.trim();
  if (text === '') return undefined;
  return parseInlineConfig(text);
}

/** Parses (or finds already parsed) one config text; throws `invalid_config` / `config_unavailable`. */
export function parseInlineConfig(text: string, mode: ConfigMode = 'standalone'): NormalisedConfig {
  const cache = parsed[mode];
  const known = cache.get(text);
  if (known) {
    // Most recently used last: the oldest entry is the first the map iterates.
    cache.delete(text);
    cache.set(text, known);
    return known;
  }
  if (!text.startsWith('{')) {
    throw gatewayError(
      'config_unavailable',
      `${H.config} names a saved config; saved configs need a control plane (CONTROL_PLANE_GRPC_URL). Send the config as a JSON object instead`,
      { param: H.config },
    );
  }
  const config = parseConfigText(text, mode);
  if (cache.size >= MAX_CACHED) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  cache.set(text, config);
  return config;
}

/** Validates one config text (no cache); throws `invalid_config` / `config_unavailable`. */
export function parseConfigText(text: string, mode: ConfigMode): NormalisedConfig {
  const result = parseConfigJson(text);
  if (!result.ok) {
    throw gatewayError('invalid_config', configErrorMessage(result.errors), {
      param: result.errors[0]?.path ?? 'config',
    });
  }
  assertResolvable(result.config, mode);
  return result.config;
}

/** Forgets every parsed config (tests). */
export function clearParsedConfigs(): void {
  parsed.standalone.clear();
  parsed.managed.clear();
}

/**
 * What only the control plane's snapshot can resolve (managed providers, virtual keys, saved
 * guardrails), and credentials the gateway would have to exchange for a token first.
 */
function assertResolvable(config: NormalisedConfig, mode: ConfigMode): void {
  const walk = (node: ConfigNode): void => {
    const s = node.settings;
    if (mode === 'standalone') {
      if (s.virtual_key !== undefined) needsSnapshot(`${node.path}.virtual_key`, 'a virtual key');
      if (s.provider?.startsWith('@'))
        needsSnapshot(`${node.path}.provider`, `managed provider ${s.provider}`);
    }
    if (s.azure_auth_mode === 'entra' || s.azure_auth_mode === 'managed') {
      unsupported(`${node.path}.azure_auth_mode`, `azure_auth_mode "${s.azure_auth_mode}"`);
    }
    if (s.vertex_service_account_json !== undefined) {
      unsupported(`${node.path}.vertex_service_account_json`, 'a Vertex service account');
    }
    refs(node.path, 'input_guardrails', s.input_guardrails, mode);
    refs(node.path, 'output_guardrails', s.output_guardrails, mode);
    for (const target of node.targets) walk(target);
  };
  walk(config);
}

/** With a snapshot, refs stay in the parsed (cached) tree and resolve per request (auth/saved-guardrails.ts). */
function refs(path: string, field: string, list: readonly Guardrail[] | undefined, mode: ConfigMode): void {
  if (mode === 'managed') return;
  list?.forEach((guardrail, i) => {
    if (guardrail.type === 'ref')
      needsSnapshot(`${path}.${field}[${i}]`, `saved guardrail "${guardrail.id}"`);
  });
}

function needsSnapshot(path: string, what: string): never {
  throw gatewayError(
    'config_unavailable',
    `${path}: ${what} is resolved by the control plane, and this gateway runs standalone (no CONTROL_PLANE_GRPC_URL)`,
    { param: path },
  );
}

function unsupported(path: string, what: string): never {
  throw gatewayError(
    'config_unavailable',
    `${path}: ${what} needs a token exchange the gateway does not make yet; send the token as api_key`,
    { param: path },
  );
}
