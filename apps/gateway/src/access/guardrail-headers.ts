// Webhook headers of saved guardrails and saved configs: the envelope a Guardrail or Config entity
// carries (`encrypted_headers`, sealed by the control plane, AAD bound to the guardrail id, or to the
// config id and its config version, docs/secrets.md) opened with MASTER_KEY and kept per entity id and
// version, so requests never decrypt. As with provider credentials (credentials.ts), an envelope that
// does not open is an error kept for that version: the guardrail or config fails closed instead of
// calling its webhook without headers. Plaintext is never logged.
import type { Logger } from '@aigw/runtime';
import { OpenedByVersion, openSecret, parseMasterKey, webhookHeadersAad } from '@aigw/secret-box';

/**
 * Header values by check, as sealed: by check index for a guardrail (`{"1": {"authorization": "…"}}`),
 * by check path for a config (`{"targets.0.input_guardrails.1.checks.2": {…}}`).
 */
export type HeadersByCheck = Readonly<Record<string, Readonly<Record<string, string>>>>;

/** Why an entity's headers are unusable here; the message names the entity, never a value. */
export class HeadersUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HeadersUnavailable';
  }
}

/** Whose envelope it is (for messages) and the AAD it was sealed under. */
export interface HeadersOwner {
  readonly kind: 'guardrail' | 'config';
  readonly aad: string;
}

export class GuardrailHeaderStore {
  readonly #key: Buffer | undefined;
  readonly #log: Logger;
  readonly #opened = new OpenedByVersion<HeadersByCheck | HeadersUnavailable>();

  constructor(masterKey: string | undefined, log: Logger) {
    this.#key = masterKey === undefined ? undefined : parseMasterKey(masterKey);
    this.#log = log;
  }

  /**
   * The headers sealed in `envelope` for entity `id` at `version`, or why they cannot be used. The
   * owner is a guardrail unless told otherwise (`config` with the AAD of its config version).
   */
  open(
    id: string,
    version: number,
    envelope: Uint8Array,
    owner: HeadersOwner = { kind: 'guardrail', aad: webhookHeadersAad(id) },
  ): HeadersByCheck | HeadersUnavailable {
    // A guardrail and a config are told apart: the key names the kind as well as the id.
    const key = `${owner.kind}:${id}`;
    return (
      this.#opened.get(key, version) ??
      this.#opened.set(key, version, this.#open(id, version, envelope, owner))
    );
  }

  #open(
    id: string,
    version: number,
    envelope: Uint8Array,
    owner: HeadersOwner,
  ): HeadersByCheck | HeadersUnavailable {
    if (!this.#key) {
      this.#log.error(
        { id, version },
        `MASTER_KEY is not set: webhook headers of a ${owner.kind} cannot be opened`,
      );
      return new HeadersUnavailable(
        `this gateway has no MASTER_KEY, so the webhook headers of saved ${owner.kind}s cannot be used (docs/secrets.md)`,
      );
    }
    try {
      const text = openSecret(this.#key, Buffer.from(envelope), owner.aad).toString('utf8');
      return toHeaders(JSON.parse(text));
    } catch (err) {
      // Id and reason only: never the envelope, never the plaintext.
      const reason = (err as { reason?: string }).reason ?? 'unreadable';
      this.#log.error(
        { id, version, reason },
        `webhook headers of a ${owner.kind} do not open with this MASTER_KEY`,
      );
      return new HeadersUnavailable(
        `the webhook headers of ${owner.kind} ${id} cannot be opened on this gateway (MASTER_KEY differs from the control plane's?)`,
      );
    }
  }
}

function toHeaders(json: unknown): HeadersByCheck {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new Error('not an object');
  const out: Record<string, Record<string, string>> = {};
  for (const [index, headers] of Object.entries(json)) {
    if (!/^[\w.]+$/.test(index) || typeof headers !== 'object' || headers === null)
      throw new Error('bad entry');
    const values: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (typeof value !== 'string') throw new Error('bad header value');
      values[name] = value;
    }
    out[index] = values;
  }
  return out;
}

/**
 * Puts each sealed header map back as its check's `parameters.headers`, in place. Keys are check
 * indexes within a list whose `path` is '' (a saved guardrail's checks) or `<path>.<index>` (a
 * config's inline guardrails). False when an entry names no check with parameters: a body and an
 * envelope that do not belong together, which fails closed like an envelope that does not open.
 */
export function putBackHeaders(
  lists: readonly { readonly path: string; readonly checks: readonly unknown[] }[],
  headers: HeadersByCheck,
): boolean {
  const left = new Set(Object.keys(headers));
  for (const { path, checks } of lists) {
    checks.forEach((check, i) => {
      const key = path === '' ? String(i) : `${path}.${i}`;
      const values = headers[key];
      const parameters = (check as { parameters?: unknown } | null)?.parameters;
      if (values === undefined || typeof parameters !== 'object' || parameters === null) return;
      (parameters as Record<string, unknown>).headers = { ...values };
      left.delete(key);
    });
  }
  return left.size === 0;
}
