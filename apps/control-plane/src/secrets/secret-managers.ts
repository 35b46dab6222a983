// Reading one secret from where it is kept (secret references, docs/admin-api/secret-references.md), through each manager's documented HTTP API:
// HashiCorp Vault's KV v2 engine (`GET /v1/<mount>/data/<path>`, `X-Vault-Token`), AWS Secrets
// Manager (`GetSecretValue`, JSON 1.1 protocol, SigV4-signed by the AWS SDK's own signer), or the
// control plane's `AIGW_SECRET_*` environment variables (local use). Failures say what failed in
// words and status codes, never with the manager's response body (it is not ours to show).
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import type { SecretManager } from '../db/secret-references.db.js';
import { withOutboundHost } from '../outbound/outbound-fetch.js';
import { HostResolutionError, type LookupFn, MetadataHostError } from '../outbound/outbound-host.js';

export interface VaultSettings {
  readonly address: string;
  readonly mount: string;
  readonly path: string;
  readonly namespace?: string;
}

export interface AwsSettings {
  readonly region: string;
  readonly secret_id: string;
  /** Another endpoint than `https://secretsmanager.<region>.amazonaws.com` (VPC endpoint, tests). */
  readonly endpoint?: string;
}

export interface EnvSettings {
  /** `AIGW_SECRET_<NAME>`: only variables with that prefix can be read. */
  readonly variable: string;
}

export interface ManagerAuth {
  readonly token?: string;
  readonly aws_access_key_id?: string;
  readonly aws_secret_access_key?: string;
  readonly aws_session_token?: string;
}

export interface SecretSource {
  readonly manager: SecretManager;
  readonly settings: Readonly<Record<string, string>>;
  readonly auth: ManagerAuth | null;
}

export interface ManagerDeps {
  /** The control plane's `AIGW_SECRET_*` variables (config.ts reads them). */
  readonly env: ReadonlyMap<string, string>;
  /** Per request. */
  readonly timeoutMs: number;
  /** Resolves managers' host names; the system resolver unless a test injects one. */
  readonly lookup?: LookupFn;
}

/** What reading secret references needs: MASTER_KEY to open manager credentials, and the above. */
export interface SecretDeps extends ManagerDeps {
  readonly masterKey: Buffer | null;
}

/** The AAD of a secret reference's sealed manager credentials. */
export const referenceAad = (id: string): string => `secret_reference:${id}`;

export class SecretResolutionError extends Error {}

const fail = (message: string): never => {
  throw new SecretResolutionError(message);
};

/**
 * One request to a manager's host, checked and pinned (outbound/): never a cloud metadata or
 * this-host address, private addresses allowed, connected only to the addresses checked.
 */
async function send(url: URL, init: RequestInit, deps: ManagerDeps, what: string): Promise<unknown> {
  try {
    return await withOutboundHost(url, deps.lookup ? { lookup: deps.lookup } : {}, async (fetch) => {
      let res: Response;
      try {
        res = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(deps.timeoutMs) });
      } catch (err) {
        const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
        return fail(`${what}: could not reach ${url.host} (${cause})`);
      }
      const text = await res.text();
      if (!res.ok) return fail(`${what}: ${url.host} answered ${res.status}`);
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return fail(`${what}: ${url.host} answered something other than JSON`);
      }
    });
  } catch (err) {
    if (err instanceof MetadataHostError) return fail(`${err.message}, never a secret manager`);
    if (err instanceof HostResolutionError) return fail(`${what}: ${err.message}`);
    throw err;
  }
}

/** A value picked out of a secret that holds several (`key`), or the secret when it is one string. */
function pick(value: unknown, key: string | null, what: string): string {
  if (key === null) {
    if (typeof value === 'string') return value;
    return fail(`${what} holds several values: name one with "key"`);
  }
  const picked =
    typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  if (typeof picked !== 'string') return fail(`${what} has no string value "${key}"`);
  return picked;
}

async function vault(s: VaultSettings, auth: ManagerAuth | null, key: string | null, deps: ManagerDeps) {
  const what = `Vault secret ${s.mount}/${s.path}`;
  if (!auth?.token) return fail(`${what}: no Vault token`);
  const path = s.path.split('/').map(encodeURIComponent).join('/');
  const url = new URL(`${s.address.replace(/\/$/, '')}/v1/${encodeURIComponent(s.mount)}/data/${path}`);
  const body = await send(
    url,
    {
      headers: { 'x-vault-token': auth.token, ...(s.namespace ? { 'x-vault-namespace': s.namespace } : {}) },
    },
    deps,
    what,
  );
  const data = (body as { data?: { data?: unknown } } | null)?.data?.data;
  if (typeof data !== 'object' || data === null) return fail(`${what}: not a KV v2 answer (no data.data)`);
  return pick(data, key, what);
}

const sha256 = Hash.bind(null, 'sha256');

async function aws(s: AwsSettings, auth: ManagerAuth | null, key: string | null, deps: ManagerDeps) {
  const what = `AWS secret ${s.secret_id}`;
  if (!auth?.aws_access_key_id || !auth.aws_secret_access_key) return fail(`${what}: no AWS access key`);
  const url = new URL(s.endpoint ?? `https://secretsmanager.${s.region}.amazonaws.com/`);
  const body = JSON.stringify({ SecretId: s.secret_id });
  const signer = new SignatureV4({
    service: 'secretsmanager',
    region: s.region,
    sha256,
    credentials: {
      accessKeyId: auth.aws_access_key_id,
      secretAccessKey: auth.aws_secret_access_key,
      ...(auth.aws_session_token ? { sessionToken: auth.aws_session_token } : {}),
    },
  });
  const signed = await signer.sign({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname,
    query: {},
    headers: {
      host: url.host,
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': 'secretsmanager.GetSecretValue',
    },
    body,
  });
  const answer = (await send(
    url,
    { method: 'POST', headers: signed.headers as Record<string, string>, body },
    deps,
    what,
  )) as { SecretString?: unknown } | null;
  const secret = answer?.SecretString;
  if (typeof secret !== 'string') return fail(`${what}: no SecretString (binary secrets are not supported)`);
  if (key === null) return secret;
  let parsed: unknown;
  try {
    parsed = JSON.parse(secret);
  } catch {
    return fail(`${what} is not JSON, so it has no key "${key}"`);
  }
  return pick(parsed, key, what);
}

function fromEnv(s: EnvSettings, key: string | null, deps: ManagerDeps): string {
  const value = deps.env.get(s.variable);
  if (value === undefined) return fail(`environment variable ${s.variable} is not set on the control plane`);
  if (key === null) return value;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return fail(`${s.variable} is not JSON, so it has no key "${key}"`);
  }
  return pick(parsed, key, s.variable);
}

/** The secret's value (or its `key`); throws SecretResolutionError saying why not. */
export async function readSecret(
  source: SecretSource,
  key: string | null,
  deps: ManagerDeps,
): Promise<string> {
  const settings = source.settings as unknown;
  switch (source.manager) {
    case 'vault_kv2':
      return vault(settings as VaultSettings, source.auth, key, deps);
    case 'aws_secrets_manager':
      return aws(settings as AwsSettings, source.auth, key, deps);
    case 'env':
      return fromEnv(settings as EnvSettings, key, deps);
  }
}
