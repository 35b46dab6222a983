// Saved configs: `x-service-config: <id or slug>` (or the key's default config) is the workspace's
// Config entity, active, its body parsed once per id and version and kept parsed. The webhook header
// values of its inline guardrails arrive sealed (`encrypted_headers`, one envelope per config
// version): they are opened with MASTER_KEY (GuardrailHeaderStore, once per id and version) and put
// back into the checks before the parse; an envelope that does not open fails closed (500
// `credentials_unavailable`), so a webhook is never called without its headers.
import { inlineCheckLists, type NormalisedConfig } from '@aigw/config-schema';
import { EntityKind, EntityStatus } from '@aigw/proto';
import { configHeadersAad } from '@aigw/secret-box';
import { gatewayError } from '../errors.js';
import { parseConfigText } from '../request/config-header.js';
import { H } from '../request/service-headers.js';
import type { EntityOf, Snapshot } from '../snapshot/index.js';
import {
  type GuardrailHeaderStore,
  type HeadersByCheck,
  HeadersUnavailable,
  putBackHeaders,
} from './guardrail-headers.js';

export interface SavedConfig {
  readonly id: string;
  readonly slug: string;
  /** The config's own version (Config.version), recorded on request events. */
  readonly version: number;
  readonly config: NormalisedConfig;
}

/** Saved configs kept parsed; beyond it the least recently used is parsed again when next used. */
const MAX_ENTRIES = 1024;

export class SavedConfigs {
  /** By entity id; an entity version change replaces the entry. */
  readonly #parsed = new Map<string, { readonly entityVersion: number; readonly saved: SavedConfig }>();
  readonly #headers: GuardrailHeaderStore;

  constructor(headers: GuardrailHeaderStore) {
    this.#headers = headers;
  }

  /**
   * The active config of the workspace named by id or slug; throws `config_not_found` (400), or
   * `credentials_unavailable` (500) when its sealed webhook headers do not open here.
   */
  resolve(snapshot: Snapshot, workspaceId: string, idOrSlug: string, param: string = H.config): SavedConfig {
    const byId = snapshot.find(EntityKind.CONFIG, 'config', idOrSlug);
    const entity =
      byId?.workspaceId === workspaceId
        ? byId
        : (snapshot.bySlug(EntityKind.CONFIG, workspaceId, idOrSlug) as EntityOf<'config'> | undefined);
    if (entity?.body?.$case !== 'config' || entity.body.value.status !== EntityStatus.ACTIVE) {
      throw gatewayError(
        'config_not_found',
        `no active saved config "${idOrSlug.slice(0, 128)}" in this workspace`,
        { param },
      );
    }
    const held = this.#parsed.get(entity.id);
    if (held?.entityVersion === entity.version) {
      this.#parsed.delete(entity.id);
      this.#parsed.set(entity.id, held);
      return held.saved;
    }
    const c = entity.body.value;
    // The control plane validated it; a gateway on another schema version may still refuse it (400).
    const saved = {
      id: entity.id,
      slug: c.slug,
      version: c.version,
      config: parseConfigText(this.#bodyWithHeaders(entity, param), 'managed'),
    };
    if (this.#parsed.size >= MAX_ENTRIES) {
      const oldest = this.#parsed.keys().next().value;
      if (oldest !== undefined) this.#parsed.delete(oldest);
    }
    this.#parsed.set(entity.id, { entityVersion: entity.version, saved });
    return saved;
  }

  /** The body text with the sealed header values back in their checks (the text as is without any). */
  #bodyWithHeaders(entity: EntityOf<'config'>, param: string): string {
    const { bodyJson, encryptedHeaders, version } = entity.body.value;
    if (encryptedHeaders.length === 0) return bodyJson;
    const aad = configHeadersAad(entity.id, version);
    const opened = this.#headers.open(entity.id, entity.version, encryptedHeaders, { kind: 'config', aad });
    const text = opened instanceof HeadersUnavailable ? undefined : restoreHeaders(bodyJson, opened);
    if (text !== undefined) return text;
    const reason =
      opened instanceof HeadersUnavailable
        ? opened.message
        : `the webhook headers of config ${entity.id} do not match its checks (control plane and gateway disagree)`;
    // As an unopenable provider credential: 500, and no webhook is called without its headers.
    throw gatewayError('credentials_unavailable', `${param}: ${reason}`, { param });
  }
}

/**
 * `bodyJson` with every sealed header map put back as its check's `headers`; undefined when an entry
 * names no check that takes headers (a body and an envelope that do not belong together).
 */
function restoreHeaders(bodyJson: string, headers: HeadersByCheck): string | undefined {
  let config: unknown;
  try {
    config = JSON.parse(bodyJson);
  } catch {
    return bodyJson; // Refused by the parse that follows (400): no check runs.
  }
  return putBackHeaders(inlineCheckLists(config), headers) ? JSON.stringify(config) : undefined;
}
