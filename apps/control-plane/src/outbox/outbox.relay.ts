// The outbox relay: while this replica holds the relay lock, publishes unpublished outbox rows to
// JetStream in id order (Nats-Msg-Id = outbox id), marks them published, and prunes old ones.
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '@aigw/runtime';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { Kysely } from 'kysely';
import type { ControlDatabase } from '../db/schema.js';
import { createRelayLock } from './outbox.lock.js';
import { markPublished, OUTBOX_CHANNEL, pruneOutbox, selectUnpublished } from './outbox.store.js';
import { natsRoute } from './outbox.streams.js';

export interface OutboxRelayDeps {
  readonly db: Kysely<ControlDatabase>;
  /** For the relay's own session (advisory lock + LISTEN), outside the pool. */
  readonly databaseUrl: string;
  readonly js: JetStreamClient;
  readonly log: Logger;
  /** Poll interval when no NOTIFY arrives, and how often a standby replica tries the lock. */
  readonly pollMs: number;
  /** Rows per select and per `published_at` update (default 200). */
  readonly batchSize?: number;
  /** Stream and subject prefix (`NATS_NAMESPACE`); see natsRoute. */
  readonly namespace?: string | undefined;
  /** How long to wait for one PubAck (default 5 s). */
  readonly publishTimeoutMs?: number;
  /** Cap of the exponential back-off after a failed round (default 10 s). */
  readonly maxBackoffMs?: number;
  /** Published rows older than this are deleted, except the newest row (default 24 h). */
  readonly retentionMs?: number;
  /** How often the active relay prunes (default 10 min). */
  readonly pruneIntervalMs?: number;
}

export interface OutboxRelay {
  /** Takes the first lock attempt, then runs in the background. */
  start(): Promise<void>;
  /** Finishes the publish in flight, marks what went out, and releases the lock. */
  stop(): Promise<void>;
  /** True while this relay holds the lock (and so is the one publishing). */
  readonly active: boolean;
}

const FIRST_BACKOFF_MS = 100;

export function createOutboxRelay(deps: OutboxRelayDeps): OutboxRelay {
  const log = deps.log.child({ component: 'outbox-relay' });
  const batchSize = deps.batchSize ?? 200;
  const publishTimeoutMs = deps.publishTimeoutMs ?? 5_000;
  const maxBackoffMs = deps.maxBackoffMs ?? 10_000;
  const retentionMs = deps.retentionMs ?? 24 * 3_600_000;
  const pruneIntervalMs = deps.pruneIntervalMs ?? 10 * 60_000;
  const wakeUp = new WakeUp();
  const lock = createRelayLock({
    databaseUrl: deps.databaseUrl,
    channel: OUTBOX_CHANNEL,
    log,
    onNotify: () => wakeUp.signal(),
    onLost: () => wakeUp.signal(),
  });
  let running = false;
  let stopping = new AbortController();
  let loop: Promise<void> | undefined;

  /** Publishes until nothing is left; 'failed' means retry later from the first unpublished row. */
  const publishPending = async (): Promise<'done' | 'failed'> => {
    while (running && lock.held) {
      const rows = await selectUnpublished(deps.db, batchSize);
      if (rows.length === 0) return 'done';
      const published: string[] = [];
      let failed = false;
      for (const row of rows) {
        // Another replica may already have taken over: stop before publishing more.
        if (!running || !lock.held) break;
        try {
          const route = natsRoute(row.subject, deps.namespace);
          await deps.js.publish(route.subject, row.payload, {
            msgID: row.id,
            expect: { streamName: route.stream },
            timeout: publishTimeoutMs,
          });
          published.push(row.id);
        } catch (err) {
          // Later rows wait: skipping one would put an entity's changes out of order.
          log.warn(
            { err: errorMessage(err), outboxId: row.id, subject: row.subject },
            'outbox publish failed',
          );
          failed = true;
          break;
        }
      }
      await markPublished(deps.db, published);
      if (failed) return 'failed';
      if (rows.length < batchSize) return 'done';
    }
    return 'done';
  };

  const prune = async () => {
    try {
      const deleted = await pruneOutbox(deps.db, retentionMs);
      if (deleted > 0) log.info({ deleted }, 'pruned published outbox rows');
    } catch (err) {
      log.warn({ err: errorMessage(err) }, 'outbox prune failed');
    }
  };

  const run = async (signal: AbortSignal) => {
    let failures = 0;
    let pruneDueAt = 0;
    while (running) {
      if (!lock.held) {
        if (!(await lock.tryAcquire())) {
          await wakeUp.wait(deps.pollMs);
          continue;
        }
        failures = 0;
      }
      const outcome = await publishPending().catch((err: unknown) => {
        log.warn({ err: errorMessage(err) }, 'outbox relay round failed');
        return 'failed' as const;
      });
      if (outcome === 'failed') {
        failures += 1;
        const backoffMs = Math.min(maxBackoffMs, FIRST_BACKOFF_MS * 2 ** Math.min(failures - 1, 20));
        await delay(backoffMs, undefined, { signal }).catch(() => undefined);
        continue;
      }
      if (failures > 0) log.info({ failedRounds: failures }, 'outbox relay recovered');
      failures = 0;
      if (lock.held && Date.now() >= pruneDueAt) {
        pruneDueAt = Date.now() + pruneIntervalMs;
        await prune();
      }
      await wakeUp.wait(deps.pollMs);
    }
  };

  return {
    get active() {
      return running && lock.held;
    },
    async start() {
      if (running) return;
      running = true;
      stopping = new AbortController();
      if (!(await lock.tryAcquire()))
        log.info(
          'outbox relay standing by: another replica holds the lock (or Postgres is unreachable); retrying',
        );
      loop = run(stopping.signal).catch((err: unknown) => {
        log.error({ err: errorMessage(err) }, 'outbox relay stopped unexpectedly');
      });
    },
    async stop() {
      if (!running) return;
      running = false;
      stopping.abort();
      wakeUp.signal();
      await loop;
      await lock.close();
      log.info('outbox relay stopped');
    },
  };
}

/** A sleep that a NOTIFY (or stop) cuts short; a signal while nobody waits shortens the next wait. */
class WakeUp {
  private pending = false;
  private release: (() => void) | undefined;

  signal(): void {
    if (this.release) this.release();
    else this.pending = true;
  }

  wait(ms: number): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.release = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.release = done;
    });
  }
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
