// The header values of a saved guardrail's webhook and `partner.<name>` checks, sealed for storage:
// one envelope per guardrail (AAD bound to its id), a masked copy for responses, and the checks
// stored with `headers: {}`. Without MASTER_KEY, headers are refused rather than stored in plaintext.
// On update, a value sent back masked keeps the one stored at the same check and header name
// (integrations/masked-values.ts).
import { openSecret, sealSecret, webhookHeadersAad } from '@aigw/secret-box';
import { apiError } from '../api-errors.js';
import type { MaskedHeaders } from '../db/guardrails.db.js';
import { maskSecret } from '../integrations/credentials.js';
import { unmasked } from '../integrations/masked-values.js';

/** A check as stored or sent: the id and its parameters. */
export interface CheckLike {
  readonly id: string;
  readonly parameters?: Record<string, unknown> | undefined;
}

/** Header values by check index (`{"0": {"Authorization": "Bearer …"}}`): what the envelope holds. */
export type HeadersByCheck = Record<string, Record<string, string>>;

export interface SealedHeaderColumns {
  readonly encrypted_headers: Buffer | null;
  readonly masked_headers: string | null;
}

/** Checks called like a webhook (guardrails.checks.ts) are the ones with `headers`. */
export function carriesHeaders(check: CheckLike): boolean {
  return check.id === 'webhook' || check.id.startsWith('partner.');
}

function headersOf(check: CheckLike): Record<string, string> {
  const headers = carriesHeaders(check) ? check.parameters?.headers : undefined;
  if (typeof headers !== 'object' || headers === null) return {};
  return Object.fromEntries(
    Object.entries(headers).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

/** The checks with every header value taken out (`headers: {}`), and those values by check index. */
export function splitHeaders<C extends CheckLike>(
  checks: readonly C[],
): { checks: C[]; headers: HeadersByCheck } {
  const headers: HeadersByCheck = {};
  const stripped = checks.map((check, index) => {
    if (!carriesHeaders(check)) return check;
    const values = headersOf(check);
    if (Object.keys(values).length > 0) headers[String(index)] = values;
    return { ...check, parameters: { ...check.parameters, headers: {} } };
  });
  return { checks: stripped, headers };
}

/** Names kept, values masked the way credentials are (`****` and at most the last 4 characters). */
export function maskHeaders(headers: HeadersByCheck): MaskedHeaders {
  return Object.fromEntries(
    Object.entries(headers).map(([index, values]) => [
      index,
      Object.fromEntries(Object.entries(values).map(([name, value]) => [name, maskSecret(value)])),
    ]),
  );
}

/**
 * Operator misconfiguration, not a client mistake: 500 AB04, as for provider credentials. `owner`
 * names what holds the headers (`guardrails`, `configs`).
 */
export function masterKeyMissing(owner: string) {
  return apiError(
    'AB04',
    `MASTER_KEY is not set on this control plane, so webhook headers of ${owner} cannot be stored (see docs/secrets.md)`,
  );
}

/**
 * The header columns for `headers` (already taken out of the checks): null when there are none,
 * else the envelope under `aad` and its masked copy. 500 AB04 without MASTER_KEY when there are
 * headers; what has none needs no key.
 */
export function sealHeaders(
  masterKey: Buffer | null,
  aad: string,
  headers: HeadersByCheck,
  owner: string,
): SealedHeaderColumns {
  if (Object.keys(headers).length === 0) return { encrypted_headers: null, masked_headers: null };
  if (masterKey === null) throw masterKeyMissing(owner);
  return {
    encrypted_headers: sealSecret(masterKey, JSON.stringify(headers), aad),
    masked_headers: JSON.stringify(maskHeaders(headers)),
  };
}

/**
 * The header values a row stores: its envelope opened under `aad`, over the plaintext still in the
 * checks of a row stored before the envelope existed (`legacy`), as responses merge them to mask.
 */
export function storedHeaders(
  masterKey: Buffer,
  aad: string,
  envelope: Buffer | null,
  legacy: HeadersByCheck,
): HeadersByCheck {
  const sealed: HeadersByCheck =
    envelope === null ? {} : JSON.parse(openSecret(masterKey, envelope, aad).toString('utf8'));
  const out: HeadersByCheck = { ...legacy };
  for (const [key, values] of Object.entries(sealed)) out[key] = { ...legacy[key], ...values };
  return out;
}

function ownValue<T>(record: Record<string, T> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * Header values sent on update with every masked one read against `stored` at the same key (check
 * index or path) and header name: the mask of the stored value keeps it, a mask that matches nothing
 * stored there is 400 AB01 on `paramOf(key, name)`.
 */
export function unmaskHeaders(
  sent: HeadersByCheck,
  stored: HeadersByCheck,
  paramOf: (key: string, name: string) => string,
): HeadersByCheck {
  return Object.fromEntries(
    Object.entries(sent).map(([key, values]) => [
      key,
      Object.fromEntries(
        Object.entries(values).map(([name, value]) => [
          name,
          unmasked(value, ownValue(ownValue(stored, key), name), paramOf(key, name)) as string,
        ]),
      ),
    ]),
  );
}

/** What an update keeps: the header values stored now, and the field masks are reported on. */
export interface StoredCheckHeaders {
  readonly headers: HeadersByCheck;
  /** `body.checks`: a refused mask is `body.checks.<index>.parameters.headers.<name>`. */
  readonly param: string;
}

/**
 * The checks to store for guardrail `id` (header values taken out) and the header columns
 * (sealHeaders, AAD bound to the guardrail id). With `stored` (an update), masked values sent back
 * keep the stored ones (unmaskHeaders).
 */
export function sealCheckHeaders<C extends CheckLike>(
  masterKey: Buffer | null,
  id: string,
  checks: readonly C[],
  stored?: StoredCheckHeaders,
): { checks: C[]; columns: SealedHeaderColumns } {
  const split = splitHeaders(checks);
  const headers =
    stored === undefined
      ? split.headers
      : unmaskHeaders(
          split.headers,
          stored.headers,
          (index, name) => `${stored.param}.${index}.parameters.headers.${name}`,
        );
  return {
    checks: split.checks,
    columns: sealHeaders(masterKey, webhookHeadersAad(id), headers, 'guardrails'),
  };
}

/** The header values guardrail `row` stores (storedHeaders, AAD bound to its id). */
export function storedGuardrailHeaders(
  masterKey: Buffer,
  row: { readonly id: string; readonly encrypted_headers: Buffer | null },
  checks: readonly CheckLike[],
): HeadersByCheck {
  return storedHeaders(
    masterKey,
    webhookHeadersAad(row.id),
    row.encrypted_headers,
    splitHeaders(checks).headers,
  );
}

/**
 * The checks as responses show them: header names with masked values. A row stored before
 * migration 0018 and not sealed yet (no MASTER_KEY since) still holds plaintext: masked here too.
 */
export function checksForApi<C extends CheckLike>(checks: readonly C[], masked: MaskedHeaders | null): C[] {
  const legacy = maskHeaders(splitHeaders(checks).headers);
  return checks.map((check, index) => {
    if (!carriesHeaders(check)) return check;
    const headers = { ...legacy[String(index)], ...masked?.[String(index)] };
    return { ...check, parameters: { ...check.parameters, headers } };
  });
}
