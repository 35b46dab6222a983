// Saved configs: `x-service-config: <id or slug>` (or the key's default config) is the workspace's
// Config entity, active, its body parsed once per id and version and kept parsed.
import type { NormalisedConfig } from '@aigw/config-schema';
import { EntityKind, EntityStatus } from '@aigw/proto';
import { gatewayError } from '../errors.js';
import { parseConfigText } from '../request/config-header.js';
import { H } from '../request/service-headers.js';
import type { EntityOf, Snapshot } from '../snapshot/index.js';

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

  /** The active config of the workspace named by id or slug; throws `config_not_found` (400). */
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
      config: parseConfigText(c.bodyJson, 'managed'),
    };
    if (this.#parsed.size >= MAX_ENTRIES) {
      const oldest = this.#parsed.keys().next().value;
      if (oldest !== undefined) this.#parsed.delete(oldest);
    }
    this.#parsed.set(entity.id, { entityVersion: entity.version, saved });
    return saved;
  }
}
