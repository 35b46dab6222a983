// Request and response schemas of the secret reference routes: one shape of `settings` and `auth`
// per manager, checked strictly so a typo is a 400 naming the field, not a secret that never resolves.
import { z } from 'zod';
import { idOrSlug, listSchema, pageQuery } from '../http/list.js';
import { secretSchema } from '../integrations/credentials.js';
import { entityNameSchema, entitySlugSchema } from '../integrations/integrations.schema.js';

export const SECRET_MANAGERS = ['vault_kv2', 'aws_secrets_manager', 'env'] as const;

const httpUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .max(2048)
  .refine((v) => !new URL(v).username && !new URL(v).password, 'must not carry credentials');
const segment = z
  .string()
  .min(1)
  .max(512)
  .regex(/^[A-Za-z0-9._\-/]+$/, 'letters, digits, . _ - and /');

export const SETTINGS = {
  vault_kv2: z
    .object({
      address: httpUrl,
      mount: z
        .string()
        .min(1)
        .max(128)
        .regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, . _ -')
        .default('secret'),
      path: segment.refine((p) => !p.split('/').some((s) => s === '..' || s === '.'), 'no . or .. segments'),
      namespace: z
        .string()
        .min(1)
        .max(256)
        .regex(/^[A-Za-z0-9._\-/]+$/)
        .optional(),
    })
    .strict(),
  aws_secrets_manager: z
    .object({
      region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/, 'must be an AWS region such as eu-west-1'),
      secret_id: z
        .string()
        .min(1)
        .max(2048)
        .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces'),
      endpoint: httpUrl.optional(),
    })
    .strict(),
  env: z
    .object({
      variable: z
        .string()
        .regex(/^AIGW_SECRET_[A-Z0-9_]{1,128}$/, 'must be an AIGW_SECRET_* variable of the control plane'),
    })
    .strict(),
} as const;

export const AUTH = {
  vault_kv2: z.object({ token: secretSchema }).strict(),
  aws_secrets_manager: z
    .object({
      aws_access_key_id: z.string().regex(/^[A-Z0-9]{16,128}$/, 'must be an AWS access key id (A-Z, 0-9)'),
      aws_secret_access_key: secretSchema,
      aws_session_token: secretSchema.optional(),
    })
    .strict(),
  env: z.null(),
} as const;

const common = {
  name: entityNameSchema,
  /** Default: derived from the name, unique in the organisation. */
  slug: entitySlugSchema.optional(),
  description: z.string().trim().max(2000).optional(),
  allow_all_workspaces: z.boolean().optional(),
  allowed_workspaces: z.array(idOrSlug).max(1000).optional(),
  refresh_interval_seconds: z.number().int().min(30).max(86_400).optional(),
};

export const createSecretReferenceBody = z.discriminatedUnion('manager', [
  z
    .object({
      ...common,
      manager: z.literal('vault_kv2'),
      settings: SETTINGS.vault_kv2,
      auth: AUTH.vault_kv2,
    })
    .strict(),
  z
    .object({
      ...common,
      manager: z.literal('aws_secrets_manager'),
      settings: SETTINGS.aws_secrets_manager,
      auth: AUTH.aws_secrets_manager,
    })
    .strict(),
  z
    .object({ ...common, manager: z.literal('env'), settings: SETTINGS.env, auth: AUTH.env.optional() })
    .strict(),
]);

/** `settings` and `auth` are checked against the reference's manager (which never changes). */
export const updateSecretReferenceBody = z
  .object({
    name: entityNameSchema.optional(),
    description: z.string().trim().max(2000).nullable().optional(),
    settings: z.record(z.string(), z.unknown()).optional(),
    auth: z.record(z.string(), z.unknown()).optional(),
    allow_all_workspaces: z.boolean().optional(),
    allowed_workspaces: z.array(idOrSlug).max(1000).optional(),
    refresh_interval_seconds: z.number().int().min(30).max(86_400).optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'give at least one field to change');

export const secretReferenceParams = z.object({ secretReferenceId: idOrSlug });
export const listSecretReferencesQuery = z
  .object({ ...pageQuery, manager: z.enum(SECRET_MANAGERS).optional() })
  .strict();

export const secretReferenceSchema = z.object({
  id: z.uuid(),
  object: z.literal('secret_reference'),
  organisation_id: z.uuid(),
  name: z.string(),
  slug: z.string(),
  description: z.string().nullable(),
  manager: z.enum(SECRET_MANAGERS),
  settings: z.record(z.string(), z.string()),
  /** The manager credentials, each value reduced to its last four characters; null for `env`. */
  auth: z.record(z.string(), z.string()).nullable(),
  allow_all_workspaces: z.boolean(),
  allowed_workspaces: z.array(z.uuid()),
  refresh_interval_seconds: z.number().int(),
  created_by_user_id: z.uuid().nullable(),
  created_by_api_key_id: z.uuid().nullable(),
  created_at: z.string(),
  last_updated_at: z.string(),
});
export const secretReferenceListSchema = listSchema(secretReferenceSchema);

/** What one resolution did to one record that maps the reference. */
const resolvedRecord = z.object({
  id: z.uuid(),
  slug: z.string(),
  /** The credentials now in use came from this resolution. */
  resolved: z.boolean(),
  /** The credentials changed (gateways receive them within a second). */
  changed: z.boolean(),
  error: z.string().nullable(),
});

export const resolutionSchema = z.object({
  object: z.literal('secret_reference_resolution'),
  secret_reference_id: z.uuid(),
  integrations: z.array(resolvedRecord),
  /** Virtual keys (provider rows with their own credentials) that map the reference. */
  virtual_keys: z.array(resolvedRecord),
});
