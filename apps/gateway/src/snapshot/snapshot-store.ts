// Holds the live Snapshot: readers take `current()`, the sync swaps in whole new snapshots.
import { Snapshot } from './snapshot.js';

export class SnapshotStore {
  #current = Snapshot.empty();
  #loaded = false;

  /** The snapshot to read now: keep the reference for the whole request, never expect it to change. */
  current(): Snapshot {
    return this.#current;
  }

  /** True once a full snapshot (from the control plane or the last-known-good file) was installed. */
  get loaded(): boolean {
    return this.#loaded;
  }

  /** Installs `next` for every later `current()`; requests holding the old one finish with it. */
  replace(next: Snapshot): void {
    this.#current = next;
    this.#loaded = true;
  }
}
