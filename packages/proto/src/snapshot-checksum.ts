// The snapshot checksum (SnapshotTrailer.checksum, GetRevisionResponse.checksum): one definition
// shared by the control plane that computes it and the gateway that verifies it.
import { createHash } from 'node:crypto';
import type { EntityKind } from './gen/aigw/v1/entities.js';

/** What the checksum covers of each entity; an `Entity` message satisfies it. */
export interface EntityVersionRef {
  readonly kind: EntityKind;
  readonly id: string;
  readonly version: number;
}

function compareRefs(a: EntityVersionRef, b: EntityVersionRef): number {
  if (a.kind !== b.kind) return a.kind - b.kind;
  if (a.id === b.id) return 0;
  return a.id < b.id ? -1 : 1;
}

/**
 * Lowercase hex SHA-256 over `<kind number>:<id>:<version>\n` per entity, sorted by kind number
 * then id, so the result does not depend on the order in which entities were streamed.
 */
export function snapshotChecksum(entities: Iterable<EntityVersionRef>): string {
  const sorted = [...entities].sort(compareRefs);
  const hash = createHash('sha256');
  for (const entity of sorted) hash.update(`${entity.kind}:${entity.id}:${entity.version}\n`);
  return hash.digest('hex');
}
