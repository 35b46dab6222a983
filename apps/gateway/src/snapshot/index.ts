// Public surface of the gateway's snapshot module: the immutable Snapshot, the store the request path
// reads, and the sync that keeps it in step with the control plane.
import type { Snapshot } from './snapshot.js';

export { changeSubjectWildcard } from './change-feed.js';
export {
  decodeLastKnownGood,
  encodeLastKnownGood,
  readLastKnownGood,
  writeLastKnownGood,
} from './lkg-file.js';
export { type EntityOf, organisationScope, Snapshot } from './snapshot.js';
export { createSnapshotClient, type SnapshotClient, type SnapshotClientOptions } from './snapshot-client.js';
export {
  type LoadFailure,
  type ReceivedSnapshot,
  receiveSnapshot,
  SnapshotLoadError,
} from './snapshot-frames.js';
export type { ResyncReason, SnapshotStats } from './snapshot-metrics.js';
export { SnapshotStore } from './snapshot-store.js';
export { SnapshotSync, type SnapshotSyncOptions } from './snapshot-sync.js';

/** What the request path needs from the snapshot store: the snapshot to read right now. */
export interface SnapshotSource {
  current(): Snapshot;
  /** False until a first snapshot is installed (absent: a fixed snapshot, always loaded). */
  readonly loaded?: boolean;
}
