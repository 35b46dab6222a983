// Validation of a saved config: the gateway's own parser (@aigw/config-schema) on the exact text that
// is stored, the rule that saved configs carry no credentials, and the references they make.
import { configErrorMessage, formatPath, parseConfigJson } from '@aigw/config-schema';
import { jsonDeeperThan, MAX_JSON_DEPTH } from '@aigw/runtime';
import { invalid } from '../api-errors.js';

type Segment = string | number;

/** A managed provider named in a config: `provider: "@slug"` or a legacy `virtual_key: "slug"`. */
export interface ProviderReference {
  readonly slug: string;
  readonly path: string;
}

/** A saved guardrail named in `input_guardrails` / `output_guardrails`, by id or slug. */
export interface GuardrailReference {
  readonly ref: string;
  readonly path: string;
}

export interface ConfigReferences {
  readonly providers: readonly ProviderReference[];
  readonly guardrails: readonly GuardrailReference[];
}

export interface ValidatedConfig {
  /** The JSON text stored as the version's body and sent to gateways as `body_json`. */
  readonly text: string;
  readonly references: ConfigReferences;
}

/**
 * Fields holding provider secrets. A saved config travels in clear to every gateway (change events,
 * snapshots) and back in API responses, so its credentials belong in a provider, sealed.
 */
export const CREDENTIAL_FIELDS = [
  'api_key',
  'aws_secret_access_key',
  'aws_session_token',
  'azure_entra_client_secret',
  'vertex_service_account_json',
] as const;

const GUARDRAIL_LISTS = ['input_guardrails', 'output_guardrails'] as const;

/** 400 AB01 with the JSON path of the first problem in `param`; else the text and its references. */
export function validateConfig(config: unknown): ValidatedConfig {
  // The admin API refuses deeper bodies already; kept here so no caller can overflow the stack below.
  if (jsonDeeperThan(config, MAX_JSON_DEPTH))
    throw invalid(`config: nests deeper than ${MAX_JSON_DEPTH} levels`, 'config');
  const text = JSON.stringify(config);
  const result = parseConfigJson(text);
  if (!result.ok) throw invalid(configErrorMessage(result.errors), result.errors[0]?.path ?? 'config');
  const nodes = configNodes(config);
  for (const { node, at } of nodes) {
    for (const field of CREDENTIAL_FIELDS) {
      if (!Object.hasOwn(node, field)) continue;
      const path = formatPath([...at, field]);
      throw invalid(
        `${path}: a saved config must not hold credentials; create a provider with them and use "provider": "@<provider-slug>"`,
        path,
      );
    }
  }
  return { text, references: referencesOf(nodes) };
}

/** The references of a config that has been validated (also of a stored version's text). */
export function configReferences(config: unknown): ConfigReferences {
  return referencesOf(configNodes(config));
}

interface NodeAt {
  readonly node: Record<string, unknown>;
  readonly at: readonly Segment[];
}

/** The root and every target, depth first in document order, with their JSON paths. */
function configNodes(config: unknown): NodeAt[] {
  const out: NodeAt[] = [];
  const walk = (node: unknown, at: readonly Segment[]): void => {
    if (!isObject(node)) return;
    out.push({ node, at });
    const targets = node.targets;
    if (!Array.isArray(targets)) return;
    targets.forEach((target, i) => {
      walk(target, [...at, 'targets', i]);
    });
  };
  walk(config, ['config']);
  return out;
}

function referencesOf(nodes: readonly NodeAt[]): ConfigReferences {
  const providers: ProviderReference[] = [];
  const guardrails: GuardrailReference[] = [];
  for (const { node, at } of nodes) {
    const provider = node.provider;
    if (typeof provider === 'string' && provider.startsWith('@')) {
      providers.push({ slug: provider.slice(1), path: formatPath([...at, 'provider']) });
    }
    if (typeof node.virtual_key === 'string') {
      providers.push({ slug: node.virtual_key, path: formatPath([...at, 'virtual_key']) });
    }
    for (const list of GUARDRAIL_LISTS) {
      const entries = node[list];
      if (!Array.isArray(entries)) continue;
      entries.forEach((entry, i) => {
        if (typeof entry === 'string') guardrails.push({ ref: entry, path: formatPath([...at, list, i]) });
      });
    }
  }
  return { providers, guardrails };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
