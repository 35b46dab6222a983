// What the snapshot sync counts: plain numbers for stats() (tests, logs), mirrored into Prometheus
// on the app's registry. Gauges are read from the store when scraped.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { FeedGap } from './change-feed.js';
import type { LoadFailure } from './snapshot-frames.js';
import type { SnapshotStore } from './snapshot-store.js';

/** Why a snapshot fetch was started (the `reason` label of gateway_snapshot_resyncs_total). */
export type ResyncReason = 'startup' | 'nats_connect' | 'anti_entropy' | FeedGap;

export interface SnapshotStats {
  /** Full snapshots installed (from the control plane or the LKG file). */
  loads: number;
  /** Change events that replaced what the gateway held (newer version). */
  changesApplied: number;
  /** Change events already reflected (same or older version). */
  changesIgnored: number;
  resyncs: Partial<Record<ResyncReason, number>>;
  loadFailures: Partial<Record<LoadFailure | 'lkg', number>>;
}

export interface SnapshotMetrics {
  readonly stats: SnapshotStats;
  loaded(): void;
  changes(applied: number, ignored: number): void;
  resync(reason: ResyncReason): void;
  loadFailed(reason: LoadFailure | 'lkg'): void;
}

export interface SnapshotMetricsOptions {
  readonly registry?: Registry | undefined;
  readonly store: SnapshotStore;
  /** When the held state was last confirmed against the control plane (undefined: never). */
  syncedAtMs(): number | undefined;
}

export function snapshotMetrics(options: SnapshotMetricsOptions): SnapshotMetrics {
  const stats: SnapshotStats = {
    loads: 0,
    changesApplied: 0,
    changesIgnored: 0,
    resyncs: {},
    loadFailures: {},
  };
  const registers = options.registry ? [options.registry] : [];
  const { store } = options;
  new Gauge({
    name: 'gateway_snapshot_loaded',
    help: '1 once a snapshot (from the control plane or the last-known-good file) is loaded',
    registers,
    collect() {
      this.set(store.loaded ? 1 : 0);
    },
  });
  new Gauge({
    name: 'gateway_snapshot_revision',
    help: 'Control-plane revision (outbox id) of the snapshot the gateway serves',
    registers,
    collect() {
      this.set(store.current().revision);
    },
  });
  new Gauge({
    name: 'gateway_snapshot_entities',
    help: 'Entities held in the served snapshot, tombstones included',
    registers,
    collect() {
      this.set(store.current().size);
    },
  });
  new Gauge({
    name: 'gateway_snapshot_age_seconds',
    help: 'Seconds since the served snapshot was last confirmed against the control plane',
    registers,
    collect() {
      const synced = options.syncedAtMs();
      if (synced === undefined) this.reset();
      else this.set(Math.max(0, (Date.now() - synced) / 1000));
    },
  });
  const applied = new Counter({
    name: 'gateway_snapshot_changes_applied_total',
    help: 'Change events applied to the snapshot (newer version than held)',
    registers,
  });
  const ignored = new Counter({
    name: 'gateway_snapshot_changes_ignored_total',
    help: 'Change events ignored because the snapshot already held that version or a newer one',
    registers,
  });
  const resyncs = new Counter({
    name: 'gateway_snapshot_resyncs_total',
    help: 'Snapshot fetches started, by reason',
    labelNames: ['reason'] as const,
    registers,
  });
  const failures = new Counter({
    name: 'gateway_snapshot_load_failures_total',
    help: 'Snapshot loads refused or failed (the last good snapshot stays), by reason',
    labelNames: ['reason'] as const,
    registers,
  });
  return {
    stats,
    loaded() {
      stats.loads++;
    },
    changes(nApplied, nIgnored) {
      stats.changesApplied += nApplied;
      stats.changesIgnored += nIgnored;
      if (nApplied) applied.inc(nApplied);
      if (nIgnored) ignored.inc(nIgnored);
    },
    resync(reason) {
      stats.resyncs[reason] = (stats.resyncs[reason] ?? 0) + 1;
      resyncs.inc({ reason });
    },
    loadFailed(reason) {
      stats.loadFailures[reason] = (stats.loadFailures[reason] ?? 0) + 1;
      failures.inc({ reason });
    },
  };
}
