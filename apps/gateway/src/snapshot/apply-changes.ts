// Applies change events to a snapshot by per-entity version, counting what each event did.
import type { ChangeEvent, Entity } from '@aigw/proto';
import type { Snapshot } from './snapshot.js';

export interface Applied {
  /** The new snapshot (`base` itself when no event was newer than what it holds). */
  readonly snapshot: Snapshot;
  readonly applied: number;
  readonly ignored: number;
}

export function applyChanges(base: Snapshot, events: readonly ChangeEvent[]): Applied {
  const seen = new Map<string, number>();
  const entities: Entity[] = [];
  let revision = base.revision;
  let applied = 0;
  for (const event of events) {
    const entity = event.entity;
    if (!entity) continue;
    revision = Math.max(revision, event.revision);
    const k = `${entity.kind}:${entity.id}`;
    const held = seen.get(k) ?? base.get(entity.kind, entity.id)?.version ?? -1;
    if (entity.version <= held) continue;
    seen.set(k, entity.version);
    entities.push(entity);
    applied++;
  }
  const ignored = events.length - applied;
  if (applied === 0 && revision <= base.revision) return { snapshot: base, applied, ignored };
  return { snapshot: base.withChanges(entities, revision), applied, ignored };
}
