// The concrete entity kinds (every EntityKind except UNSPECIFIED and UNRECOGNIZED), derived from
// the generated enum so a kind added to the proto is picked up without editing this file.
import { EntityKind } from './gen/aigw/v1/entities.js';

/** Every kind an Entity may have, in enum number order. */
export const ENTITY_KINDS: readonly EntityKind[] = Object.freeze(
  Object.values(EntityKind)
    .filter((value): value is EntityKind => typeof value === 'number')
    .filter((kind) => kind !== EntityKind.UNSPECIFIED && kind !== EntityKind.UNRECOGNIZED)
    .sort((a, b) => a - b),
);

/** True for a kind listed in ENTITY_KINDS (false for UNSPECIFIED, UNRECOGNIZED and unknown numbers). */
export function isEntityKind(kind: number): kind is EntityKind {
  return ENTITY_KINDS.includes(kind as EntityKind);
}
