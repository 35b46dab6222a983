// Wording for unknown keys, with a hint when the key is a camelCase or Portkey spelling of a known one.

/** Every field name the schema knows, at any level (node, strategy, retry, cache, guardrails). */
export const KNOWN_FIELD_NAMES: ReadonlySet<string> = new Set([
  'strategy',
  'targets',
  'name',
  'weight',
  'provider',
  'api_key',
  'virtual_key',
  'custom_host',
  'override_params',
  'forward_headers',
  'request_timeout',
  'retry',
  'cache',
  'input_guardrails',
  'output_guardrails',
  'azure_resource_name',
  'azure_deployment_id',
  'azure_api_version',
  'azure_model_name',
  'azure_auth_mode',
  'azure_entra_tenant_id',
  'azure_entra_client_id',
  'azure_entra_client_secret',
  'azure_entra_scope',
  'azure_managed_client_id',
  'vertex_project_id',
  'vertex_region',
  'vertex_service_account_json',
  'aws_access_key_id',
  'aws_secret_access_key',
  'aws_session_token',
  'aws_region',
  'anthropic_beta',
  'anthropic_version',
  'openai_project',
  'openai_organization',
  'mode',
  'on_status_codes',
  'conditions',
  'default',
  'query',
  'then',
  'attempts',
  'use_retry_after_header',
  'max_age',
  'similarity_threshold',
  'checks',
  'deny',
  'async',
  'parameters',
  'on_fail',
  'on_success',
  'feedback',
  'value',
]);

const HINTS: Readonly<Record<string, string>> = {
  before_request_hooks: 'use input_guardrails',
  after_request_hooks: 'use output_guardrails',
  strict_open_ai_compliance: 'the gateway never rewrites bodies, so there is nothing to switch off',
  options: 'the legacy `options` format is not supported: use strategy and targets',
};

export function unknownKeyText(key: string): string {
  const hint = HINTS[key];
  if (hint) return `is not a known field (${hint})`;
  const snake = key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  if (snake !== key && KNOWN_FIELD_NAMES.has(snake)) {
    return `is not a known field (did you mean "${snake}"? fields are snake_case)`;
  }
  return 'is not a known field';
}
