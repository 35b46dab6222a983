// MCP integration auth: the `auth` object of a request (none, bearer, OAuth client credentials),
// sealed for storage (AAD `mcp_integration:<id>`) and masked for responses. The sealed JSON is what
// gateways open (docs/admin-api/mcp.md); nothing secret is ever returned, logged or audited. On
// update, a secret sent back masked keeps the stored one (integrations/masked-values.ts).
import { credentialsAad, openSecret, sealSecret } from '@aigw/secret-box';
import { z } from 'zod';
import { apiError } from '../api-errors.js';
import type { McpAuthName } from '../db/mcp.db.js';
import { maskSecret, secretSchema } from '../integrations/credentials.js';
import { storedForMasks, unmasked } from '../integrations/masked-values.js';

const httpsOrHttp = z
  .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
  .max(2048)
  .refine((u) => new URL(u).username === '' && new URL(u).password === '', 'must not hold credentials');

export const mcpAuthSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('none') }).strict(),
  z.object({ type: z.literal('bearer'), token: secretSchema }).strict(),
  z
    .object({
      type: z.literal('oauth_client_credentials'),
      client_id: z
        .string()
        .min(1)
        .max(256)
        .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII'),
      client_secret: secretSchema,
      token_url: httpsOrHttp,
      scope: z.string().max(1024).optional(),
    })
    .strict(),
]);

export type McpAuthInput = z.output<typeof mcpAuthSchema>;

/** The plaintext of a sealed envelope (what gateways and the sync open). */
export type McpSecret =
  | { readonly token: string }
  | {
      readonly client_id: string;
      readonly client_secret: string;
      readonly token_url: string;
      readonly scope?: string;
    };

export interface McpCredentialColumns {
  readonly auth_type: McpAuthName;
  readonly encrypted_credentials: Buffer | null;
  readonly masked_credentials: string | null;
}

function masterKeyMissing() {
  return apiError(
    'AB04',
    'MASTER_KEY is not set on this control plane, so MCP credentials cannot be stored (see docs/secrets.md)',
  );
}

/** The columns for an `auth` object: sealed secret, masked copy. */
export function mcpCredentialColumns(
  auth: McpAuthInput,
  id: string,
  masterKey: Buffer | null,
): McpCredentialColumns {
  if (auth.type === 'none')
    return { auth_type: 'none', encrypted_credentials: null, masked_credentials: null };
  if (masterKey === null) throw masterKeyMissing();
  const { type, ...secret } = auth;
  const sealed = sealSecret(masterKey, JSON.stringify(secret), credentialsAad('mcp_integration', id));
  const masked =
    auth.type === 'bearer'
      ? { token: maskSecret(auth.token) }
      : {
          client_id: auth.client_id,
          client_secret: maskSecret(auth.client_secret),
          token_url: auth.token_url,
          ...(auth.scope !== undefined ? { scope: auth.scope } : {}),
        };
  return { auth_type: type, encrypted_credentials: sealed, masked_credentials: JSON.stringify(masked) };
}

/** Opens a stored envelope (the sync needs the secret to talk to the server). */
export function openMcpSecret(masterKey: Buffer, id: string, envelope: Buffer): McpSecret {
  return JSON.parse(
    openSecret(masterKey, envelope, credentialsAad('mcp_integration', id)).toString('utf8'),
  ) as McpSecret;
}

export const mcpUrlSchema = httpsOrHttp;

/**
 * `auth` of an update with its secret (`token`, `client_secret`) read against the stored one of the
 * same auth type: its mask keeps it, a mask that matches nothing stored is 400 AB01 on the field.
 * `client_id`, `token_url` and `scope` are shown in clear, so they are taken as sent.
 */
export function unmaskMcpAuth(
  auth: McpAuthInput,
  stored: {
    readonly auth_type: McpAuthName;
    readonly encrypted_credentials: Buffer | null;
    readonly id: string;
  },
  masterKey: Buffer | null,
  param: string,
): McpAuthInput {
  if (auth.type === 'none' || masterKey === null) return auth;
  const envelope = stored.auth_type === auth.type ? stored.encrypted_credentials : null;
  const secret: Record<string, unknown> =
    envelope === null
      ? {}
      : storedForMasks<Record<string, unknown>>(
          auth,
          () => ({ ...openMcpSecret(masterKey, stored.id, envelope) }),
          {},
        );
  const field = auth.type === 'bearer' ? 'token' : 'client_secret';
  const storedValue = typeof secret[field] === 'string' ? secret[field] : undefined;
  const value = unmasked(
    auth.type === 'bearer' ? auth.token : auth.client_secret,
    storedValue,
    `${param}.${field}`,
  ) as string;
  return auth.type === 'bearer' ? { ...auth, token: value } : { ...auth, client_secret: value };
}
