// The credentials the gateway sends to an MCP server: the sealed envelope of the MCP integration
// (AAD `mcp_integration:<id>`) opened with MASTER_KEY once per integration version, and, for OAuth
// client credentials, an access token from the token endpoint kept until shortly before it expires
// (one exchange at a time per integration). Plaintext never leaves this module but as the header.
import type { AppError, Logger } from '@aigw/runtime';
import { credentialsAad, OpenedByVersion, openSecret, parseMasterKey } from '@aigw/secret-box';
import { gatewayError } from '../errors.js';
import type { CustomHostCache } from '../upstream/custom-host-cache.js';
import { openExchange, type UpstreamExchange } from '../upstream/upstream-exchange.js';

type Secret =
  | { readonly token: string }
  | {
      readonly client_id: string;
      readonly client_secret: string;
      readonly token_url: string;
      readonly scope?: string;
    };

/** A token is renewed this long before the expiry its endpoint announced. */
const EARLY_RENEWAL_MS = 30_000;
/** Tokens whose endpoint gives no `expires_in` are kept this long. */
const DEFAULT_TOKEN_TTL_MS = 300_000;
const TOKEN_TIMEOUT_MS = 10_000;
const MAX_TOKEN_RESPONSE = 64 * 1024;

interface Token {
  readonly value: string;
  readonly expiresAt: number;
}

export interface McpIntegrationRef {
  readonly id: string;
  readonly version: number;
  readonly envelope: Uint8Array;
}

export class McpCredentials {
  readonly #key: Buffer | undefined;
  readonly #log: Logger;
  readonly #hosts: CustomHostCache;
  readonly #opened = new OpenedByVersion<Secret>();
  readonly #tokens = new Map<string, { version: number; token: Promise<Token> }>();

  constructor(masterKey: string | undefined, hosts: CustomHostCache, log: Logger) {
    this.#key = masterKey === undefined ? undefined : parseMasterKey(masterKey);
    this.#hosts = hosts;
    this.#log = log;
  }

  /** The `Authorization` value for the integration's server; undefined when it has no credentials. */
  async authorization(ref: McpIntegrationRef): Promise<string | undefined> {
    if (ref.envelope.length === 0) return undefined;
    const secret = this.#open(ref);
    if ('token' in secret) return `Bearer ${secret.token}`;
    let held = this.#tokens.get(ref.id);
    if (held?.version === ref.version) {
      const token = await held.token.catch(() => undefined);
      if (token && token.expiresAt - EARLY_RENEWAL_MS > Date.now()) return `Bearer ${token.value}`;
    }
    held = { version: ref.version, token: this.#exchange(ref.id, secret) };
    this.#tokens.set(ref.id, held);
    const token = await held.token.catch((err) => {
      this.#tokens.delete(ref.id);
      throw err;
    });
    return `Bearer ${token.value}`;
  }

  #open(ref: McpIntegrationRef): Secret {
    const held = this.#opened.get(ref.id, ref.version);
    if (held) return held;
    if (!this.#key) {
      throw gatewayError(
        'credentials_unavailable',
        'this gateway has no MASTER_KEY, so MCP server credentials cannot be used (docs/secrets.md)',
      );
    }
    try {
      const text = openSecret(
        this.#key,
        Buffer.from(ref.envelope),
        credentialsAad('mcp_integration', ref.id),
      );
      const secret = JSON.parse(text.toString('utf8')) as Secret;
      return this.#opened.set(ref.id, ref.version, secret);
    } catch (err) {
      this.#log.error(
        { mcpIntegrationId: ref.id, reason: (err as { reason?: string }).reason ?? 'unreadable' },
        'MCP integration credentials do not open with this MASTER_KEY',
      );
      throw gatewayError(
        'credentials_unavailable',
        `the credentials of MCP integration ${ref.id} cannot be opened on this gateway`,
      );
    }
  }

  /** RFC 6749 4.4 with HTTP Basic client authentication; the token URL is SSRF-checked like hosts. */
  async #exchange(id: string, secret: Extract<Secret, { client_id: string }>): Promise<Token> {
    const url = new URL(secret.token_url);
    const host = await this.#hosts.check(url.origin);
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (secret.scope) form.set('scope', secret.scope);
    const body = Buffer.from(form.toString(), 'utf8');
    const basic = Buffer.from(
      `${encodeURIComponent(secret.client_id)}:${encodeURIComponent(secret.client_secret)}`,
    ).toString('base64');
    const started = Date.now();
    const answer = await tokenAnswer(
      await openExchange({
        method: 'POST',
        url,
        headers: {
          authorization: `Basic ${basic}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
          'content-length': String(body.length),
        },
        body,
        idleTimeoutMs: TOKEN_TIMEOUT_MS,
        lookup: host.lookup,
      }),
    ).catch((err: Error) => {
      throw gatewayError(
        'upstream_unreachable',
        `the MCP server's token endpoint could not be reached: ${err.message}`,
      );
    });
    let parsed: { access_token?: unknown; expires_in?: unknown } = {};
    try {
      parsed = JSON.parse(answer.text) as typeof parsed;
    } catch {
      // handled below
    }
    if (answer.status < 200 || answer.status >= 300 || typeof parsed.access_token !== 'string') {
      this.#log.warn({ mcpIntegrationId: id, status: answer.status }, 'MCP token endpoint refused');
      throw gatewayError(
        'upstream_unreachable',
        `the MCP server's token endpoint answered ${answer.status} without an access token`,
      );
    }
    const ttl = typeof parsed.expires_in === 'number' ? parsed.expires_in * 1000 : DEFAULT_TOKEN_TTL_MS;
    return { value: parsed.access_token, expiresAt: started + ttl };
  }
}

/**
 * The token endpoint's status and text (the first 64 KiB: an access token is far shorter); rejects
 * when the endpoint could not be reached, went quiet for the idle limit, or cut its answer.
 */
function tokenAnswer(exchange: UpstreamExchange): Promise<{ status: number; text: string }> {
  const answer = exchange.response;
  if (!answer) {
    return Promise.reject(new Error(exchange.error ? failure(exchange.error) : 'no answer'));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    answer.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_TOKEN_RESPONSE) chunks.push(c);
    });
    answer.on('end', () => {
      exchange.settle();
      resolve({ status: answer.statusCode, text: Buffer.concat(chunks).toString('utf8') });
    });
    answer.on('close', () => {
      // node:http's word for an answer cut short.
      if (!answer.complete) reject(new Error(exchange.error ? failure(exchange.error) : 'aborted'));
    });
  });
}

/** A failed call in the socket's own words ("connect ECONNREFUSED ..."), or "timed out". */
function failure(error: AppError): string {
  if (error.code === 'upstream_timeout') return 'timed out';
  return error.cause instanceof Error ? error.cause.message : error.message;
}
