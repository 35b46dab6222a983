// The header values of the webhook and `partner.<name>` checks of a saved config's inline guardrails
// (root and every target, inlineCheckLists), sealed for storage: one envelope per config version,
// AAD bound to the config id and its config version, a masked copy for responses, and the stored
// body with `headers: {}` in those checks. Keys are check paths (`targets.0.input_guardrails.1.checks.2`).
// The per-check work (which checks carry headers, masking, sealing, masked values sent back on update)
// is guardrails.headers.ts's.
import { isDeepStrictEqual } from 'node:util';
import { formatPath, inlineCheckLists } from '@aigw/config-schema';
import { configHeadersAad, openSecret } from '@aigw/secret-box';
import type { MaskedHeaders } from '../db/guardrails.db.js';
import {
  type CheckLike,
  checksForApi,
  type HeadersByCheck,
  masterKeyMissing,
  type SealedHeaderColumns,
  sealHeaders,
  splitHeaders,
  storedHeaders,
  unmaskHeaders,
} from '../guardrails/guardrails.headers.js';
import { storedForMasks } from '../integrations/masked-values.js';

const OWNER = 'configs';

/** A config text to store: header values taken out (`text`), and those values by check path. */
export interface ConfigBody {
  readonly text: string;
  readonly headers: HeadersByCheck;
}

/** A stored row's body and sealed headers (a configs row or a config_versions row). */
interface StoredBody {
  readonly body: string;
  readonly encrypted_headers: Buffer | null;
}

function isCheck(value: unknown): value is CheckLike {
  return typeof value === 'object' && value !== null && typeof (value as CheckLike).id === 'string';
}

/** The checks lists of a parsed config whose items are all checks (a validated config's are). */
function checkLists(config: unknown) {
  return inlineCheckLists(config).filter((list) => list.checks.every(isCheck)) as {
    readonly path: string;
    readonly checks: CheckLike[];
  }[];
}

/** Takes every header value out of a config's JSON text (the text of a validated config). */
export function splitConfigHeaders(text: string): ConfigBody {
  const config: unknown = JSON.parse(text);
  const headers: Record<string, Record<string, string>> = {};
  for (const list of checkLists(config)) {
    const split = splitHeaders(list.checks);
    list.checks.splice(0, list.checks.length, ...split.checks);
    for (const [index, values] of Object.entries(split.headers)) headers[`${list.path}.${index}`] = values;
  }
  return Object.keys(headers).length === 0 ? { text, headers } : { text: JSON.stringify(config), headers };
}

/**
 * `splitConfigHeaders`, refused up front with 500 AB04 when the config has headers and this control
 * plane has no MASTER_KEY (nothing is written); configs without headers need no key.
 */
export function configBodyToStore(masterKey: Buffer | null, text: string): ConfigBody {
  const body = splitConfigHeaders(text);
  if (masterKey === null && Object.keys(body.headers).length > 0) throw masterKeyMissing(OWNER);
  return body;
}

/** The header columns of version `configVersion` of config `id` (null columns with no headers). */
export function sealConfigHeaders(
  masterKey: Buffer | null,
  id: string,
  configVersion: number,
  headers: HeadersByCheck,
): SealedHeaderColumns {
  return sealHeaders(masterKey, configHeadersAad(id, configVersion), headers, OWNER);
}

/** A check path (`targets.0.input_guardrails.1.checks.2`) as validation errors name it. */
function headerParam(path: string, name: string): string {
  const segments = path.split('.').map((s) => (/^\d+$/.test(s) ? Number(s) : s));
  return formatPath(['config', ...segments, 'parameters', 'headers', name]);
}

/**
 * `next` with every header value sent back masked read against what the latest version of `row`
 * stores at the same check path and header name (its envelope, or plaintext left from before
 * migration 0019): the mask of the stored value keeps it, a mask that matches nothing stored there is
 * 400 AB01 (`config.input_guardrails[0].checks[1].parameters.headers.Authorization`). Without
 * MASTER_KEY a config with headers is refused before this.
 */
export function keepMaskedHeaders(
  masterKey: Buffer | null,
  row: StoredBody & { readonly id: string; readonly config_version: number },
  next: ConfigBody,
): ConfigBody {
  if (masterKey === null || Object.keys(next.headers).length === 0) return next;
  const aad = configHeadersAad(row.id, row.config_version);
  const stored = storedForMasks(
    next.headers,
    () => storedHeaders(masterKey, aad, row.encrypted_headers, splitConfigHeaders(row.body).headers),
    {},
  );
  return { text: next.text, headers: unmaskHeaders(next.headers, stored, headerParam) };
}

/**
 * Whether `next` is what version `configVersion` of config `id` already stores (same text, same
 * header values), so no new version is due. An envelope that does not open counts as different.
 */
export function sameConfigBody(
  masterKey: Buffer | null,
  id: string,
  configVersion: number,
  stored: StoredBody,
  next: ConfigBody,
): boolean {
  if (stored.body !== next.text) return false;
  const none = Object.keys(next.headers).length === 0;
  if (stored.encrypted_headers === null || none) return stored.encrypted_headers === null && none;
  if (masterKey === null) return false;
  try {
    const opened = openSecret(masterKey, stored.encrypted_headers, configHeadersAad(id, configVersion));
    return isDeepStrictEqual(JSON.parse(opened.toString('utf8')), next.headers);
  } catch {
    return false;
  }
}

/**
 * The config object as responses show it: header names with masked values. A row stored before
 * migration 0019 and not sealed yet (no MASTER_KEY since) still holds plaintext: masked here too.
 */
export function configForApi(body: string, masked: MaskedHeaders | null): Record<string, unknown> {
  const config = JSON.parse(body) as Record<string, unknown>;
  for (const list of checkLists(config)) {
    const prefix = `${list.path}.`;
    const mine: MaskedHeaders = {};
    for (const [path, values] of Object.entries(masked ?? {})) {
      if (path.startsWith(prefix) && /^\d+$/.test(path.slice(prefix.length)))
        mine[path.slice(prefix.length)] = values;
    }
    const shown = checksForApi(list.checks, mine);
    list.checks.forEach((check, i) => {
      // A check stored without `headers` is shown as stored (the text of configs without headers).
      if (check.parameters?.headers !== undefined || mine[String(i)] !== undefined)
        list.checks[i] = shown[i]!;
    });
  }
  return config;
}
