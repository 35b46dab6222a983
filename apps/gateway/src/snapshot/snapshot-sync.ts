// Keeps the SnapshotStore in step with the control plane (ARCHITECTURE part 3): subscribe to change
// events, stream the snapshot, apply the changes buffered meanwhile; refetch on NATS reconnect, on an
// unreadable event and when anti-entropy finds a difference; keep the last good snapshot on failure.
import type { ChangeEvent } from '@aigw/proto';
import type { Logger } from '@aigw/runtime';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Registry } from 'prom-client';
import { applyChanges } from './apply-changes.js';
import { type ChangeFeed, openChangeFeed } from './change-feed.js';
import { readLastKnownGood } from './lkg-file.js';
import { LkgWriter } from './lkg-writer.js';
import { Snapshot } from './snapshot.js';
import type { SnapshotClient } from './snapshot-client.js';
import { type LoadFailure, SnapshotLoadError } from './snapshot-frames.js';
import {
  type ResyncReason,
  type SnapshotMetrics,
  type SnapshotStats,
  snapshotMetrics,
} from './snapshot-metrics.js';
import type { SnapshotStore } from './snapshot-store.js';

export interface SnapshotSyncOptions {
  readonly store: SnapshotStore;
  readonly client: SnapshotClient;
  readonly log: Logger;
  readonly registry?: Registry | undefined;
  /** NATS_NAMESPACE of the change subjects. */
  readonly namespace?: string | undefined;
  /** Last-known-good file; unset: none is written or read. */
  readonly lkgPath?: string | undefined;
  /** Period of the revision/checksum comparison; 0 turns it off. */
  readonly antiEntropyMs: number;
  /** Retry delays after a failed fetch: doubling from min to max. */
  readonly retryMinMs?: number;
  readonly retryMaxMs?: number;
  /** Changes are written to the LKG file at most this often. */
  readonly lkgDebounceMs?: number;
  /** How long the first fetch waits for NATS, so that it can subscribe first. */
  readonly natsWaitMs?: number;
}

// Changes arriving during one fetch; past this the buffer is dropped and the fetch repeated.
const MAX_BUFFERED = 100_000;

export class SnapshotSync {
  readonly #o: SnapshotSyncOptions;
  readonly #store: SnapshotStore;
  readonly #log: Logger;
  readonly #metrics: SnapshotMetrics;
  #feed: ChangeFeed | undefined;
  #nc: NatsConnection | undefined;
  #loading: Promise<void> | undefined;
  #again = false;
  #buffer: ChangeEvent[] | undefined;
  #pending: ChangeEvent[] = [];
  #failures = 0;
  #triedLkg = false;
  #syncedAtMs: number | undefined;
  #probeFailing = false;
  #stopped = false;
  #retryTimer: NodeJS.Timeout | undefined;
  #antiEntropyTimer: NodeJS.Timeout | undefined;
  #probing = false;
  readonly #lkg: LkgWriter | undefined;

  constructor(options: SnapshotSyncOptions) {
    this.#o = options;
    this.#store = options.store;
    this.#log = options.log.child({ component: 'snapshot' });
    this.#metrics = snapshotMetrics({
      registry: options.registry,
      store: options.store,
      syncedAtMs: () => this.#syncedAtMs,
    });
    const state = () =>
      this.#store.loaded
        ? { snapshot: this.#store.current(), syncedAtMs: this.#syncedAtMs ?? Date.now() }
        : undefined;
    this.#lkg = options.lkgPath
      ? new LkgWriter(options.lkgPath, options.lkgDebounceMs ?? 5_000, this.#log, state)
      : undefined;
  }

  /** Counters for tests and diagnostics; `buffering`: changes held back by the running fetch. */
  stats(): Readonly<SnapshotStats & { buffering: number }> {
    return { ...this.#metrics.stats, buffering: this.#buffer?.length ?? 0 };
  }

  /** Starts in the background; `nats` resolves when (if ever) the NATS connection is up. */
  start(nats?: Promise<NatsConnection>): void {
    const attached = nats?.then((nc) => this.#attach(nc));
    attached?.catch((err: unknown) => this.#log.warn({ err }, 'change feed not started'));
    const waited = attached
      ? Promise.race([attached, delay(this.#o.natsWaitMs ?? 2_000)]).catch(() => undefined)
      : Promise.resolve();
    void waited.then(() => this.#request('startup'));
    const every = this.#o.antiEntropyMs;
    if (every > 0) {
      this.#antiEntropyTimer = setInterval(() => void this.#probe(), every);
      this.#antiEntropyTimer.unref();
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#retryTimer);
    clearInterval(this.#antiEntropyTimer);
    this.#feed?.close();
    this.#o.client.close();
    await this.#lkg?.close();
  }

  async #attach(nc: NatsConnection): Promise<void> {
    if (this.#stopped) return;
    this.#nc = nc;
    const feed = openChangeFeed({
      nc,
      namespace: this.#o.namespace,
      log: this.#log,
      onChange: (event) => this.#onChange(event),
      onGap: (reason) => this.#request(reason),
    });
    this.#feed = feed;
    await feed.ready;
    // A fetch that started before the subscription existed may miss what committed in between.
    if (this.#loading || this.#store.loaded) this.#request('nats_connect');
  }

  #request(reason: ResyncReason): void {
    if (this.#stopped) return;
    this.#metrics.resync(reason);
    this.#log.info({ reason }, 'snapshot fetch requested');
    this.#startLoads();
  }

  #startLoads(): void {
    if (this.#stopped) return;
    if (this.#loading) {
      this.#again = true;
      return;
    }
    clearTimeout(this.#retryTimer);
    this.#loading = this.#runLoads().finally(() => {
      this.#loading = undefined;
    });
  }

  async #runLoads(): Promise<void> {
    do {
      this.#again = false;
      if (!(await this.#loadOnce())) {
        this.#scheduleRetry();
        return;
      }
      this.#failures = 0;
    } while (this.#again && !this.#stopped);
  }

  async #loadOnce(): Promise<boolean> {
    this.#flushPending();
    this.#buffer = [];
    const held = this.#store.loaded ? this.#store.current() : undefined;
    try {
      // After a reconnect: make sure the server has our subscription again before reading.
      // Bounded: with NATS down the control plane must still be read.
      if (this.#nc) await Promise.race([this.#nc.flush().catch(() => undefined), delay(1_000)]);
      let received = await this.#o.client.fetch(held?.revision ?? 0);
      let base: Snapshot | undefined;
      if (received.notModified) {
        if (held && received.entityCount === held.size && received.checksum === held.checksum()) base = held;
        else received = await this.#o.client.fetch(0);
      }
      if (!base) {
        if (received.notModified)
          throw new SnapshotLoadError('malformed', 'not modified without a known revision');
        base = Snapshot.of(received.entities, received.revision);
      }
      const buffered = this.#takeBuffer();
      const { snapshot, applied, ignored } = applyChanges(base, buffered);
      this.#metrics.changes(applied, ignored);
      this.#store.replace(snapshot);
      this.#syncedAtMs = Date.now();
      this.#metrics.loaded();
      this.#log.info(
        { revision: snapshot.revision, entities: snapshot.size, buffered: buffered.length },
        base === held ? 'snapshot confirmed current' : 'snapshot loaded',
      );
      this.#lkg?.now();
      return true;
    } catch (err) {
      // stop() cancels the running call: that is no failure worth a metric or a warning.
      if (this.#stopped) return false;
      const reason: LoadFailure = err instanceof SnapshotLoadError ? err.reason : 'unavailable';
      this.#metrics.loadFailed(reason);
      this.#log.warn(
        {
          reason,
          err: err instanceof Error ? err.message : String(err),
          serving: this.#store.current().revision,
        },
        'snapshot fetch failed; keeping the last good snapshot',
      );
      const buffered = this.#takeBuffer();
      if (!this.#store.loaded && !this.#triedLkg) await this.#loadLkg();
      if (this.#store.loaded && buffered.length > 0) this.#apply(buffered);
      return false;
    }
  }

  #takeBuffer(): ChangeEvent[] {
    const buffered = this.#buffer ?? [];
    this.#buffer = undefined;
    return buffered;
  }

  #scheduleRetry(): void {
    if (this.#stopped) return;
    const min = this.#o.retryMinMs ?? 500;
    const wait = Math.min(this.#o.retryMaxMs ?? 30_000, min * 2 ** Math.min(this.#failures++, 16));
    this.#retryTimer = setTimeout(() => this.#startLoads(), wait * (0.8 + Math.random() * 0.4));
    this.#retryTimer.unref();
  }

  async #loadLkg(): Promise<void> {
    this.#triedLkg = true;
    const path = this.#o.lkgPath;
    if (!path) return;
    try {
      const lkg = await readLastKnownGood(path);
      if (!lkg) return;
      if (this.#store.loaded) return;
      this.#store.replace(lkg.snapshot);
      this.#syncedAtMs = lkg.syncedAtMs;
      this.#metrics.loaded();
      this.#log.warn(
        { path, revision: lkg.snapshot.revision, entities: lkg.snapshot.size, syncedAtMs: lkg.syncedAtMs },
        'control plane unreachable: serving the last-known-good snapshot file',
      );
    } catch (err) {
      this.#metrics.loadFailed('lkg');
      this.#log.error(
        { path, err: err instanceof Error ? err.message : String(err) },
        'last-known-good file unusable',
      );
    }
  }

  #onChange(event: ChangeEvent): void {
    if (this.#buffer) {
      if (this.#buffer.length < MAX_BUFFERED) this.#buffer.push(event);
      else {
        this.#buffer = [];
        this.#again = true;
      }
      return;
    }
    // Not loaded and not fetching: the next fetch reads state that already includes this change.
    if (!this.#store.loaded) return;
    this.#pending.push(event);
    // One snapshot copy per burst, not per event.
    if (this.#pending.length === 1) setImmediate(() => this.#flushPending());
  }

  #flushPending(): void {
    const events = this.#pending;
    if (events.length === 0) return;
    this.#pending = [];
    if (this.#buffer) this.#buffer.push(...events);
    else this.#apply(events);
  }

  #apply(events: readonly ChangeEvent[]): void {
    const { snapshot, applied, ignored } = applyChanges(this.#store.current(), events);
    this.#metrics.changes(applied, ignored);
    if (snapshot === this.#store.current()) return;
    this.#store.replace(snapshot);
    if (applied > 0) this.#lkg?.soon();
  }

  async #probe(): Promise<void> {
    if (this.#stopped || this.#loading || this.#probing || !this.#store.loaded) return;
    this.#probing = true;
    let remote: Awaited<ReturnType<SnapshotClient['revision']>>;
    try {
      remote = await this.#o.client.revision();
    } catch (err) {
      if (!this.#probeFailing) this.#log.warn({ err: (err as Error).message }, 'anti-entropy check failed');
      this.#probeFailing = true;
      return;
    } finally {
      this.#probing = false;
    }
    if (this.#probeFailing) this.#log.info('anti-entropy check answers again');
    this.#probeFailing = false;
    if (this.#stopped || this.#loading) return;
    this.#flushPending();
    const held = this.#store.current();
    if (remote.entityCount === held.size && remote.checksum === held.checksum()) {
      this.#syncedAtMs = Date.now();
      // Audit rows share the outbox ids: the revision moves without a change the gateway sees.
      if (remote.revision > held.revision) this.#store.replace(held.withChanges([], remote.revision));
      return;
    }
    this.#log.warn(
      {
        held: { revision: held.revision, entities: held.size },
        remote: { revision: remote.revision, entities: remote.entityCount },
      },
      'anti-entropy found a difference',
    );
    this.#request('anti_entropy');
  }
}

const delay = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms).unref();
  });
