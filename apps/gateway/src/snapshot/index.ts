// Public surface of the gateway's snapshot module: the immutable Snapshot and what reads it.
import type { Snapshot } from './snapshot.js';

export { type EntityOf, Snapshot } from './snapshot.js';

/** What the request path needs from the snapshot store: the snapshot to read right now. */
export type SnapshotSource = { current(): Snapshot };
