// Webhook headers of saved guardrails: the envelope a Guardrail entity carries (`encrypted_headers`,
// sealed by the control plane, AAD bound to the guardrail id, docs/secrets.md) opened with MASTER_KEY
// and kept per guardrail id and version, so requests never decrypt. As with provider credentials
// (credentials.ts), an envelope that does not open is an error kept for that version: the guardrail
// fails closed instead of calling its webhook without headers. Plaintext is never logged.
import type { Logger } from '@aigw/runtime';
import { openSecret, parseMasterKey, webhookHeadersAad } from '@aigw/secret-box';

/** Header values by check index, as sealed: `{"1": {"authorization": "Bearer …"}}`. */
export type HeadersByCheck = Readonly<Record<string, Readonly<Record<string, string>>>>;

/** Why a guardrail's headers are unusable here; the message names the guardrail, never a value. */
export class HeadersUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HeadersUnavailable';
  }
}

/** Opened envelopes kept at most; guardrails beyond it are opened again when next used. */
const MAX_ENTRIES = 10_000;

type Opened = { readonly version: number; readonly value: HeadersByCheck | HeadersUnavailable };

export class GuardrailHeaderStore {
  readonly #key: Buffer | undefined;
  readonly #log: Logger;
  readonly #opened = new Map<string, Opened>();

  constructor(masterKey: string | undefined, log: Logger) {
    this.#key = masterKey === undefined ? undefined : parseMasterKey(masterKey);
    this.#log = log;
  }

  /** The headers sealed in `envelope` for guardrail `id` at `version`, or why they cannot be used. */
  open(id: string, version: number, envelope: Uint8Array): HeadersByCheck | HeadersUnavailable {
    let opened = this.#opened.get(id);
    if (opened?.version !== version) {
      opened = { version, value: this.#open(id, version, envelope) };
      if (this.#opened.size >= MAX_ENTRIES) {
        const oldest = this.#opened.keys().next().value;
        if (oldest !== undefined) this.#opened.delete(oldest);
      }
      this.#opened.set(id, opened);
    }
    return opened.value;
  }

  #open(id: string, version: number, envelope: Uint8Array): HeadersByCheck | HeadersUnavailable {
    if (!this.#key) {
      this.#log.error(
        { id, version },
        'MASTER_KEY is not set: webhook headers of a guardrail cannot be opened',
      );
      return new HeadersUnavailable(
        'this gateway has no MASTER_KEY, so the webhook headers of saved guardrails cannot be used (docs/secrets.md)',
      );
    }
    try {
      const text = openSecret(this.#key, Buffer.from(envelope), webhookHeadersAad(id)).toString('utf8');
      return toHeaders(JSON.parse(text));
    } catch (err) {
      // Id and reason only: never the envelope, never the plaintext.
      const reason = (err as { reason?: string }).reason ?? 'unreadable';
      this.#log.error(
        { id, version, reason },
        'webhook headers of a guardrail do not open with this MASTER_KEY',
      );
      return new HeadersUnavailable(
        `the webhook headers of guardrail ${id} cannot be opened on this gateway (MASTER_KEY differs from the control plane's?)`,
      );
    }
  }
}

function toHeaders(json: unknown): HeadersByCheck {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new Error('not an object');
  const out: Record<string, Record<string, string>> = {};
  for (const [index, headers] of Object.entries(json)) {
    if (!/^\d+$/.test(index) || typeof headers !== 'object' || headers === null) throw new Error('bad entry');
    const values: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (typeof value !== 'string') throw new Error('bad header value');
      values[name] = value;
    }
    out[index] = values;
  }
  return out;
}
