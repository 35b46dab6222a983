// `x-service-config`: an inline JSON config, validated by @aigw/config-schema and kept parsed for
// the next request that sends the same text; saved config ids wait for the control-plane snapshot.
import type { IncomingHttpHeaders } from 'node:http';
import {
  type ConfigNode,
  configErrorMessage,
  type Guardrail,
  type NormalisedConfig,
  parseConfigJson,
} from '@aigw/config-schema';
import { gatewayError } from '../errors.js';
import { H } from '../request/service-headers.js';

/** Distinct config texts kept parsed; a client sends the same config on every call. */
const MAX_CACHED = 256;
const parsed = new Map<string, NormalisedConfig>();

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
export function parseInlineConfig(text: string): NormalisedConfig {
  const known = parsed.get(text);
  if (known) {
    // Most recently used last: the oldest entry is the first the map iterates.
    parsed.delete(text);
    parsed.set(text, known);
    return known;
  }
  if (!text.startsWith('{')) {
    throw gatewayError(
      'config_unavailable',
      `${H.config} names a saved config; saved configs need a control plane (CONTROL_PLANE_GRPC_URL). Send the config as a JSON object instead`,
      { param: H.config },
    );
  }
  const result = parseConfigJson(text);
  if (!result.ok) {
    throw gatewayError('invalid_config', configErrorMessage(result.errors), {
      param: result.errors[0]?.path ?? 'config',
    });
  }
  assertStandalone(result.config);
  if (parsed.size >= MAX_CACHED) {
    const oldest = parsed.keys().next().value;
    if (oldest !== undefined) parsed.delete(oldest);
  }
  parsed.set(text, result.config);
  return result.config;
}

/** Forgets every parsed config (tests). */
export function clearParsedConfigs(): void {
  parsed.clear();
}

/**
 * What only the control plane's snapshot can resolve (managed providers, virtual keys, saved
 * guardrails), and credentials the gateway would have to exchange for a token first.
 */
function assertStandalone(config: NormalisedConfig): void {
  const walk = (node: ConfigNode): void => {
    const s = node.settings;
    if (s.virtual_key !== undefined) needsSnapshot(`${node.path}.virtual_key`, 'a virtual key');
    if (s.provider?.startsWith('@')) needsSnapshot(`${node.path}.provider`, `managed provider ${s.provider}`);
    if (s.azure_auth_mode === 'entra' || s.azure_auth_mode === 'managed') {
      unsupported(`${node.path}.azure_auth_mode`, `azure_auth_mode "${s.azure_auth_mode}"`);
    }
    if (s.vertex_service_account_json !== undefined) {
      unsupported(`${node.path}.vertex_service_account_json`, 'a Vertex service account');
    }
    refs(node.path, 'input_guardrails', s.input_guardrails);
    refs(node.path, 'output_guardrails', s.output_guardrails);
    for (const target of node.targets) walk(target);
  };
  walk(config);
}

function refs(path: string, field: string, list: readonly Guardrail[] | undefined): void {
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
