// zod schemas for the settings a config node may carry (everything but strategy, targets and guardrails).
import { z } from 'zod';
import { dnsLabel, headerName, httpUrl, secret, shortText, slug } from './formats.js';
import { jsonObject } from './json-data.js';

export type { Guardrail, GuardrailCheck } from './guardrails.schema.js';

export const LIMITS = {
  maxDepth: 10,
  maxTargets: 50,
  maxNodes: 500,
  maxWeight: 1_000_000,
  maxRetryAttempts: 10,
  maxRequestTimeoutMs: 3_600_000,
  maxCacheAgeSeconds: 31_536_000,
  maxConditions: 50,
  maxQueryDepth: 5,
  maxForwardHeaders: 50,
} as const;

/** Retried when `retry.on_status_codes` is not given. */
export const DEFAULT_RETRY_STATUS_CODES: readonly number[] = [429, 500, 502, 503, 504];
export const DEFAULT_CACHE_MAX_AGE_SECONDS = 86_400;
export const DEFAULT_SIMILARITY_THRESHOLD = 0.95;

const sortedUnique = (values: readonly number[]): number[] => [...new Set(values)].sort((a, b) => a - b);

export const statusCodes = z.array(z.int().min(100).max(599)).min(1).max(100).transform(sortedUnique);

export const targetName = z
  .string()
  .regex(/^[A-Za-z0-9_.:-]{1,64}$/, "must be 1-64 letters, digits, '_', '.', ':' or '-'");

const retry = z
  .strictObject({
    attempts: z.int().min(0).max(LIMITS.maxRetryAttempts),
    on_status_codes: statusCodes.optional(),
    use_retry_after_header: z.boolean().optional(),
  })
  .transform((r) => ({
    attempts: r.attempts,
    on_status_codes: r.on_status_codes ?? [...DEFAULT_RETRY_STATUS_CODES],
    use_retry_after_header: r.use_retry_after_header ?? false,
  }));

export type RetrySettings = z.output<typeof retry>;

const cache = z
  .strictObject({
    mode: z.enum(['simple', 'semantic']),
    max_age: z.int().min(1).max(LIMITS.maxCacheAgeSeconds).optional(),
    similarity_threshold: z.number().min(0).max(1).optional(),
  })
  .superRefine((c, ctx) => {
    if (c.mode === 'simple' && c.similarity_threshold !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['similarity_threshold'],
        message: 'applies only to mode "semantic"',
        params: { code: 'unexpected_field' },
      });
    }
  })
  .transform(
    (c): CacheSettings =>
      c.mode === 'simple'
        ? { mode: 'simple', max_age: c.max_age ?? DEFAULT_CACHE_MAX_AGE_SECONDS }
        : {
            mode: 'semantic',
            max_age: c.max_age ?? DEFAULT_CACHE_MAX_AGE_SECONDS,
            similarity_threshold: c.similarity_threshold ?? DEFAULT_SIMILARITY_THRESHOLD,
          },
  );

export type CacheSettings =
  | { readonly mode: 'simple'; readonly max_age: number }
  | { readonly mode: 'semantic'; readonly max_age: number; readonly similarity_threshold: number };

const forwardHeaders = z
  .array(
    headerName.refine((name) => !name.startsWith('x-service-'), {
      message: 'must not be an x-service-* header (those are the gateway’s own)',
      params: { code: 'invalid_value' },
    }),
  )
  .max(LIMITS.maxForwardHeaders)
  .transform((names) => [...new Set(names)]);

const BETA_LIST = /^\s*[A-Za-z0-9._-]{1,128}\s*(?:,\s*[A-Za-z0-9._-]{1,128}\s*)*$/;

/** Comma-separated beta names (the header's form); spaces are dropped. */
const anthropicBeta = z
  .string()
  .max(4096)
  .regex(BETA_LIST, 'must be beta names separated by commas')
  .transform((s) => [...new Set(s.split(',').map((part) => part.trim()))].join(','));

const provider = z
  .string()
  .regex(
    /^(?:@[A-Za-z0-9][A-Za-z0-9._-]{0,254}|[A-Za-z0-9][A-Za-z0-9._-]{0,63})$/,
    'must be a provider id such as "openai", or "@<provider-slug>" for a managed provider',
  );

/** Fields that go with the provider they were written for (see inheritance in docs/config.md). */
export const PROVIDER_FIELDS = {
  provider,
  api_key: secret,
  virtual_key: slug,
  custom_host: httpUrl(false),
  azure_resource_name: dnsLabel,
  azure_deployment_id: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, "must be 1-64 letters, digits, '.', '_' or '-'"),
  azure_api_version: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,32}$/, 'must be an API version such as "2024-10-21"'),
  azure_model_name: shortText,
  azure_auth_mode: z.enum(['default', 'entra', 'managed']),
  azure_entra_tenant_id: shortText,
  azure_entra_client_id: shortText,
  azure_entra_client_secret: secret,
  azure_entra_scope: z
    .string()
    .regex(/^\S{1,512}$/, 'must be a scope such as "https://cognitiveservices.azure.com/.default"'),
  azure_managed_client_id: shortText,
  vertex_project_id: dnsLabel,
  vertex_region: dnsLabel,
  vertex_service_account_json: z.record(z.string(), z.string()),
  aws_access_key_id: z.string().regex(/^[A-Za-z0-9]{1,128}$/, 'must be an AWS access key id'),
  aws_secret_access_key: secret,
  aws_session_token: secret,
  aws_region: dnsLabel,
  anthropic_beta: anthropicBeta,
  anthropic_version: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date such as "2023-06-01"'),
  openai_project: shortText,
  openai_organization: shortText,
} as const;

/** Fields inherited one by one, whatever the provider. */
export const SHARED_FIELDS = {
  override_params: jsonObject,
  forward_headers: forwardHeaders,
  request_timeout: z.int().min(1).max(LIMITS.maxRequestTimeoutMs),
  retry,
  cache,
} as const;

export type ProviderField = keyof typeof PROVIDER_FIELDS;
export type SharedField = keyof typeof SHARED_FIELDS;
export const PROVIDER_FIELD_NAMES = Object.keys(PROVIDER_FIELDS) as ProviderField[];
export const SHARED_FIELD_NAMES = Object.keys(SHARED_FIELDS) as SharedField[];
