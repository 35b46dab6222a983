// The provider types an integration or virtual key may have (the gateway's registry ids) and, per
// type, which credential shapes and connection options it takes.

export const AI_PROVIDERS = [
  'openai',
  'anthropic',
  'azure-openai',
  'vertex-ai',
  'bedrock',
  'groq',
  'mistral-ai',
  'cohere',
  'together-ai',
  'deepseek',
  'fireworks-ai',
  'perplexity-ai',
  'openrouter',
  'ollama',
  'openai-compatible',
] as const;

export type AiProvider = (typeof AI_PROVIDERS)[number];

/** Credential shapes (credentials.ts holds their schemas). */
export type CredentialShape = 'api_key' | 'azure_entra' | 'aws' | 'service_account' | 'headers_only';

/** Non-secret connection options (options.ts holds their schemas). */
export type OptionName =
  | 'custom_host'
  | 'resource_name'
  | 'api_version'
  | 'deployments'
  | 'region'
  | 'project_id';

export interface ProviderTypeRules {
  /** Accepted credential shapes; the first one whose marker field is present is used. */
  readonly shapes: readonly CredentialShape[];
  /** False for local or self-hosted types that may run without any credential. */
  readonly credentialsRequired: boolean;
  readonly options: readonly OptionName[];
  /** Options that must be present, each with the option that may stand in for it. */
  readonly requiredOptions?: readonly { readonly name: OptionName; readonly unless?: OptionName }[];
}

const BEARER: ProviderTypeRules = {
  shapes: ['api_key'],
  credentialsRequired: true,
  options: ['custom_host'],
};

export const PROVIDER_TYPE_RULES: Readonly<Record<AiProvider, ProviderTypeRules>> = {
  openai: BEARER,
  anthropic: BEARER,
  'azure-openai': {
    shapes: ['api_key', 'azure_entra'],
    credentialsRequired: true,
    options: ['custom_host', 'resource_name', 'api_version', 'deployments'],
    // The resource name only builds the host name, which a custom host replaces.
    requiredOptions: [{ name: 'resource_name', unless: 'custom_host' }],
  },
  'vertex-ai': {
    shapes: ['service_account', 'api_key'],
    credentialsRequired: true,
    options: ['custom_host', 'project_id', 'region'],
  },
  bedrock: {
    shapes: ['aws', 'api_key'],
    credentialsRequired: true,
    options: ['custom_host', 'region'],
    // The region is part of the SigV4 signature, custom host or not.
    requiredOptions: [{ name: 'region' }],
  },
  groq: BEARER,
  'mistral-ai': BEARER,
  cohere: BEARER,
  'together-ai': BEARER,
  deepseek: BEARER,
  'fireworks-ai': BEARER,
  'perplexity-ai': BEARER,
  openrouter: BEARER,
  ollama: { shapes: ['api_key', 'headers_only'], credentialsRequired: false, options: ['custom_host'] },
  'openai-compatible': {
    shapes: ['api_key', 'headers_only'],
    credentialsRequired: false,
    options: ['custom_host'],
    requiredOptions: [{ name: 'custom_host' }],
  },
};
