// Provider credentials: one strict schema per shape, the choice of shape by provider type, the
// masked form (last four characters) that is the only form responses ever show, and that form read
// back on update (masked-values.ts: the mask of the stored value keeps it).
import { z } from 'zod';
import { invalid } from '../api-errors.js';
import { maskSecret, unmasked } from './masked-values.js';
import { type AiProvider, type CredentialShape, PROVIDER_TYPE_RULES } from './provider-types.js';

/** Header values and keys end up in HTTP headers: printable ASCII, no CR/LF, no outer spaces. */
const PRINTABLE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;
export const secretSchema = z
  .string()
  .max(4096)
  .regex(PRINTABLE, 'must be printable ASCII without leading or trailing spaces');

const TOKEN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;
/** Headers the gateway sets itself, or that change how the request is framed or routed. */
const RESERVED_HEADER =
  /^(host|content-length|content-type|transfer-encoding|connection|keep-alive|upgrade|te|trailer|expect|proxy-.*|x-service-.*)$/i;

const secret = secretSchema;

const headerName = z
  .string()
  .regex(TOKEN, 'must be an HTTP header name (1 to 64 token characters)')
  .refine((name) => !RESERVED_HEADER.test(name), 'is a header the gateway controls');

export const customHeadersSchema = z
  .record(headerName, secret)
  .refine((headers) => Object.keys(headers).length >= 1, 'give at least one header')
  .refine((headers) => Object.keys(headers).length <= 20, 'at most 20 headers')
  .refine(
    (headers) =>
      new Set(Object.keys(headers).map((n) => n.toLowerCase())).size === Object.keys(headers).length,
    'header names must differ in more than case',
  );

const serviceAccountSchema = z.preprocess(
  (value) => {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return value;
    }
  },
  z
    .object(
      {
        type: z.literal('service_account'),
        client_email: z.string().min(3).max(320),
        private_key: z.string().min(1).max(8192),
        private_key_id: z.string().max(128).optional(),
        project_id: z.string().max(128).optional(),
      },
      { error: 'must be a service account key file (a JSON object, or its text)' },
    )
    .catchall(z.string().max(2048))
    .refine((file) => Object.keys(file).length <= 24, 'has too many fields for a key file'),
);

const withHeaders = { custom_headers: customHeadersSchema.optional() };

const SHAPES = {
  api_key: z.object({ api_key: secret, ...withHeaders }),
  azure_entra: z.object({
    client_id: z.string().min(1).max(256).regex(PRINTABLE, 'must be printable ASCII'),
    client_secret: secret,
    tenant_id: z.string().min(1).max(256).regex(PRINTABLE, 'must be printable ASCII'),
    ...withHeaders,
  }),
  aws: z.object({
    aws_access_key_id: z.string().regex(/^[A-Z0-9]{16,128}$/, 'must be an AWS access key id (A-Z, 0-9)'),
    aws_secret_access_key: secret,
    aws_session_token: secret.optional(),
    ...withHeaders,
  }),
  service_account: z.object({ service_account_json: serviceAccountSchema, ...withHeaders }),
  headers_only: z.object({ custom_headers: customHeadersSchema }),
} as const satisfies Record<CredentialShape, z.ZodObject>;

/** Fields whose presence selects a shape. */
const MARKERS: Readonly<Record<CredentialShape, readonly string[]>> = {
  api_key: ['api_key'],
  azure_entra: ['client_id', 'client_secret', 'tenant_id'],
  aws: ['aws_access_key_id', 'aws_secret_access_key', 'aws_session_token'],
  service_account: ['service_account_json'],
  headers_only: ['custom_headers'],
};

const SHAPE_HINTS: Readonly<Record<CredentialShape, string>> = {
  api_key: 'api_key',
  azure_entra: 'client_id, client_secret and tenant_id',
  aws: 'aws_access_key_id and aws_secret_access_key (aws_session_token optional)',
  service_account: 'service_account_json',
  headers_only: 'custom_headers',
};

export type Credentials = Record<string, unknown>;

function shown(key: string): string {
  return JSON.stringify(key.length > 64 ? `${key.slice(0, 64)}…` : key);
}

/**
 * Validates credentials for a provider type; errors are 400 AB01 naming the field
 * (`body.credentials.api_key`). Returns the normalised credentials (a parsed key file, for example).
 */
export function parseCredentials(type: AiProvider, value: unknown, param: string): Credentials {
  const rules = PROVIDER_TYPE_RULES[type];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalid(`${param}: must be an object`, param);
  }
  const keys = Object.keys(value);
  const shape = rules.shapes.find((s) => MARKERS[s].some((marker) => keys.includes(marker)));
  if (!shape) {
    const hints = rules.shapes.map((s) => SHAPE_HINTS[s]).join('; or ');
    throw invalid(`${param}: ${type} credentials need ${hints}`, param);
  }
  const schema = SHAPES[shape];
  const unknown = keys.find((key) => !(key in schema.shape));
  if (unknown !== undefined) {
    throw invalid(`${param}: unknown field ${shown(unknown)} for these ${type} credentials`, param);
  }
  const result = schema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    const path = [param, ...(issue?.path ?? [])].map(String).join('.');
    throw invalid(`${path}: ${issue?.message ?? 'invalid value'}`, path);
  }
  return result.data as Credentials;
}

export { maskSecret };

/** A key file shows one field: its key id, else its private key. */
function maskKeyFile(file: { private_key_id?: string; private_key: string }): string {
  return maskSecret(file.private_key_id ?? file.private_key);
}

/** The credentials as responses show them: every value masked, header names kept. */
export function maskCredentials(credentials: Credentials): Record<string, unknown> {
  const masked: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(credentials)) {
    if (name === 'custom_headers') {
      masked[name] = Object.fromEntries(
        Object.entries(value as Record<string, string>).map(([header, v]) => [header, maskSecret(v)]),
      );
    } else if (name === 'service_account_json') {
      masked[name] = maskKeyFile(value as { private_key_id?: string; private_key: string });
    } else if (typeof value === 'string') {
      masked[name] = maskSecret(value);
    }
  }
  return masked;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An own property only: a field named `constructor` or `__proto__` is never a stored value. */
function own(record: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * Credentials sent on update with every masked value read against `stored` (the plaintext stored now)
 * at the same field, or custom header name: the mask of the stored value keeps it, a mask that matches
 * nothing there is 400 AB01 on that field (masked-values.ts). Runs before parseCredentials, so a masked
 * key file or access key id is the stored one again when the shape is checked.
 */
export function unmaskCredentials(
  sent: Record<string, unknown>,
  stored: Credentials,
  param: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(sent)) {
    const at = `${param}.${name}`;
    if (name === 'custom_headers' && isRecord(value)) {
      const headers = own(stored, name);
      const storedHeaders = isRecord(headers) ? headers : {};
      out[name] = Object.fromEntries(
        Object.entries(value).map(([header, v]) => [
          header,
          unmasked(v, own(storedHeaders, header), `${at}.${header}`),
        ]),
      );
    } else if (name === 'service_account_json') {
      const file = own(stored, name);
      out[name] = unmasked(value, isRecord(file) ? file : undefined, at, (f) =>
        maskKeyFile(f as { private_key_id?: string; private_key: string }),
      );
    } else {
      out[name] = unmasked(value, own(stored, name), at);
    }
  }
  return out;
}

/** Whether a provider type may be stored without credentials. */
export function credentialsOptional(type: AiProvider): boolean {
  return !PROVIDER_TYPE_RULES[type].credentialsRequired;
}
