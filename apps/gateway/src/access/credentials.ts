// Managed provider credentials: sealed envelopes from the snapshot opened with MASTER_KEY (AAD bound
// to the owning entity, docs/secrets.md) and kept opened per entity id and version, so the hot path
// decrypts once per credential change. Plaintext stays in this process: never logged, never in events.

import type { Logger } from '@aigw/runtime';
import { credentialsAad, OpenedByVersion, openSecret, parseMasterKey } from '@aigw/secret-box';
import { gatewayError } from '../errors.js';

/** The credential fields the gateway uses (admin API names, docs/secrets.md). */
export interface ProviderCredentials {
  readonly apiKey?: string;
  readonly awsAccessKeyId?: string;
  readonly awsSecretAccessKey?: string;
  readonly awsSessionToken?: string;
  /** Azure Entra or Google service-account credentials: a token exchange the gateway does not make yet. */
  readonly exchange?: 'azure_entra' | 'service_account';
  readonly customHeaders: Readonly<Record<string, string>>;
}

export type CredentialOwner = 'integration' | 'provider';

export class CredentialStore {
  readonly #key: Buffer | undefined;
  readonly #log: Logger;
  readonly #opened = new OpenedByVersion<ProviderCredentials | Error>();

  constructor(masterKey: string | undefined, log: Logger) {
    this.#key = masterKey === undefined ? undefined : parseMasterKey(masterKey);
    this.#log = log;
  }

  /** The credentials in `envelope`, which `owner:id` at `version` holds; throws a gateway error. */
  open(owner: CredentialOwner, id: string, version: number, envelope: Uint8Array): ProviderCredentials {
    const cacheKey = `${owner}:${id}`;
    const opened =
      this.#opened.get(cacheKey, version) ??
      this.#opened.set(cacheKey, version, this.#open(owner, id, version, envelope));
    if (opened instanceof Error) throw opened;
    return opened;
  }

  #open(
    owner: CredentialOwner,
    id: string,
    version: number,
    envelope: Uint8Array,
  ): ProviderCredentials | Error {
    if (!this.#key) {
      this.#log.error(
        { owner, id, version },
        'MASTER_KEY is not set: managed provider credentials cannot be opened',
      );
      return gatewayError(
        'credentials_unavailable',
        'this gateway has no MASTER_KEY, so managed provider credentials cannot be used (docs/secrets.md)',
      );
    }
    try {
      const text = openSecret(this.#key, Buffer.from(envelope), credentialsAad(owner, id)).toString('utf8');
      return toCredentials(JSON.parse(text));
    } catch (err) {
      // Kind and id only: never the envelope, never the plaintext.
      const reason = (err as { reason?: string }).reason ?? 'unreadable';
      this.#log.error(
        { owner, id, version, reason },
        'provider credentials do not open with this MASTER_KEY',
      );
      return gatewayError(
        'credentials_unavailable',
        `the credentials of ${owner} ${id} cannot be opened on this gateway (MASTER_KEY differs from the control plane's?)`,
      );
    }
  }
}

function toCredentials(json: unknown): ProviderCredentials {
  const c = (typeof json === 'object' && json !== null ? json : {}) as Record<string, unknown>;
  const str = (name: string) => (typeof c[name] === 'string' ? (c[name] as string) : undefined);
  const headers: Record<string, string> = {};
  if (typeof c.custom_headers === 'object' && c.custom_headers !== null) {
    for (const [name, value] of Object.entries(c.custom_headers)) {
      if (typeof value === 'string') headers[name.toLowerCase()] = value;
    }
  }
  const exchange: ProviderCredentials['exchange'] =
    c.client_secret !== undefined
      ? 'azure_entra'
      : c.service_account_json !== undefined
        ? 'service_account'
        : undefined;
  return {
    ...opt('apiKey', str('api_key')),
    ...opt('awsAccessKeyId', str('aws_access_key_id')),
    ...opt('awsSecretAccessKey', str('aws_secret_access_key')),
    ...opt('awsSessionToken', str('aws_session_token')),
    ...opt('exchange', exchange),
    customHeaders: headers,
  };
}

function opt<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
