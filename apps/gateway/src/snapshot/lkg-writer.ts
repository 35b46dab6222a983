// Keeps the last-known-good file up to date without writing it per change: at once after a full load,
// at most once per debounce window after changes, one write at a time, the pending one on stop.
import type { Logger } from '@aigw/runtime';
import { writeLastKnownGood } from './lkg-file.js';
import type { Snapshot } from './snapshot.js';

export interface LkgState {
  readonly snapshot: Snapshot;
  readonly syncedAtMs: number;
}

export class LkgWriter {
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(
    private readonly path: string,
    private readonly debounceMs: number,
    private readonly log: Logger,
    /** What to write when the write happens (undefined: nothing loaded yet). */
    private readonly state: () => LkgState | undefined,
  ) {}

  /** After a full load. */
  now(): void {
    this.#schedule(0);
  }

  /** After changes: joins a write already scheduled. */
  soon(): void {
    if (!this.#timer) this.#schedule(this.debounceMs);
  }

  /** Writes what is pending and waits for every write; later calls do nothing. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#write();
    }
    await this.#writing;
  }

  #schedule(afterMs: number): void {
    if (this.#closed) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#write();
    }, afterMs);
    this.#timer.unref();
  }

  #write(): void {
    this.#writing = this.#writing
      .then(() => {
        const state = this.state();
        if (state) return writeLastKnownGood(this.path, state.snapshot, state.syncedAtMs);
      })
      .catch((err: unknown) =>
        this.log.error(
          { path: this.path, err: err instanceof Error ? err.message : String(err) },
          'could not write the last-known-good file',
        ),
      );
  }
}
