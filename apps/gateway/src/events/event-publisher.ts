// Publishes request events to JetStream off the response path, batched (RequestEventBatch: the
// events ready at the same moment, Nats-Msg-Id = `<first id>+<count>`), spooling whole batches to a
// bounded local file whenever NATS cannot take them and replaying them, unchanged, when it can.
// Events are written to the journal (journal.ts) in the turn their requests completed, before they
// linger for a batch: a process killed meanwhile leaves them for the next start to replay.
// whenKept tells the pipeline when that write is done: each response's completing bytes wait for
// it (pipeline/completion-hold.ts).

import type { RequestEvent } from '@aigw/proto';
import type { Logger } from '@aigw/runtime';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Registry } from 'prom-client';
import { batchEventCount, batchMsgId, frameBatch, MAX_BATCH_BYTES, MAX_BATCH_EVENTS } from './batch.js';
import { encodeBatches, type LazyRequestEvent } from './batch-encoder.js';
import { errorMessage } from './error-message.js';
import { eventEncoder } from './event-encoder.js';
import { type DropReason, EventCounters, type EventStats } from './event-metrics.js';
import { Journal, type JournalEntry } from './journal.js';
import { NatsLink } from './nats-link.js';
import { RateLimitedLog } from './rate-limited-log.js';
import { Replayer } from './replayer.js';
import { Spool } from './spool.js';

export interface EventPublisherOptions {
  /**
   * The app's connection. A promise while the first connection is still being made (events spool
   * until it resolves); undefined when NATS is not configured (events are dropped and counted).
   */
  readonly nc: NatsConnection | Promise<NatsConnection> | undefined;
  /** REQUESTS_SUBJECT in production; a prefixed subject in tests. */
  readonly subject: string;
  /** Directory of the spool segment files; one publisher (one process) per directory. */
  readonly spoolDir: string;
  /** Bound on the spool; beyond it new events are dropped (metric + rate-limited log line). */
  readonly maxSpoolBytes: number;
  /** Events handed off or awaiting a PubAck (default 2048); beyond it events go to the spool. */
  readonly maxInFlight?: number;
  /** Wait for a PubAck before spooling the event (default 5000). */
  readonly publishTimeoutMs?: number;
  /**
   * How long an event may wait for others to share its batch (default 25 ms): each JetStream
   * message costs both processes a fixed amount (a request, a PubAck, a stored message).
   */
  readonly lingerMs?: number;
  /** How often a replay is retried while the spool is not empty (default 2000). */
  readonly retryIntervalMs?: number;
  /** Size at which a spool segment is sealed (default maxSpoolBytes / 8, within 64 KiB..8 MiB). */
  readonly segmentBytes?: number;
  readonly log: Logger;
  /** Registers the gateway_request_events_* metrics here (one publisher per registry). */
  readonly metrics?: Registry;
}

export interface EventPublisher {
  /** Synchronous, never throws, never waits: safe on the response path. */
  publish(event: RequestEvent | LazyRequestEvent): void;
  /**
   * Calls `done` once every event published so far is on disk (page cache) or will never be: in
   * the journal (after this turn's one write), in the spool (after its pending write), or dropped.
   * The pipeline holds a response's last bytes until then (pipeline/completion-hold.ts).
   */
  whenKept(done: () => void): void;
  /** Waits (at most timeoutMs) for live publishes to settle and spool writes to reach the disk. */
  flush(timeoutMs: number): Promise<void>;
  /** Flushes, spools what is still unacked, and stops; later events go nowhere (counted as dropped). */
  close(timeoutMs: number): Promise<void>;
  stats(): EventStats;
}

/** A batch given to nats.js, awaiting its PubAck. */
interface InFlight {
  /** The batch's Nats-Msg-Id. */
  readonly id: string;
  readonly bytes: Uint8Array;
  /** Events in the batch. */
  readonly count: number;
  /** Set at close when the ack did not come in time: the batch was spooled instead. */
  abandoned: boolean;
  /** Set once the publish has started. */
  done?: Promise<void>;
  /** The journal files its events were written to, and how many events each. */
  readonly journaled: readonly { readonly entry: JournalEntry; readonly count: number }[];
}

/** Events encoded and journaled in one turn, waiting to share a JetStream batch. */
interface Chunk {
  readonly firstId: string;
  readonly bytes: Uint8Array;
  readonly count: number;
  readonly entry: JournalEntry;
}

const LOG_INTERVAL_MS = 10_000;
const MAX_BUFFERED_SPOOL_BYTES = 16 * 1024 * 1024;

export function createEventPublisher(options: EventPublisherOptions): EventPublisher {
  const log = options.log.child({ component: 'request-events' });
  const maxInFlight = options.maxInFlight ?? 2048;
  const timeoutMs = options.publishTimeoutMs ?? 5_000;
  /** Batches awaiting a PubAck. */
  const inFlight = new Set<InFlight>();
  /** Events handed off by publish(), not yet built, encoded and journaled (this turn's). */
  let handOff: (RequestEvent | LazyRequestEvent)[] = [];
  let journalScheduled = false;
  /** whenKept() callbacks waiting for this turn's journal write. */
  let keptWaiters: (() => void)[] = [];
  /** Journaled chunks lingering for a batch, and their events. */
  let chunks: Chunk[] = [];
  let chunkEvents = 0;
  /** Events handed off or awaiting an ack: the memory bound. */
  let inFlightEvents = 0;
  /** Pending pump run: events linger up to `lingerMs` so that a batch carries many of them. */
  let pumpTimer: NodeJS.Timeout | undefined;
  const lingerMs = options.lingerMs ?? 25;
  let state: 'open' | 'closing' | 'closed' = 'open';
  const encoder = eventEncoder();

  const counters = new EventCounters(options.metrics, {
    spoolBytes: () => spool.bytes,
    inFlight: () => inFlightEvents,
  });
  const spool = new Spool({
    dir: options.spoolDir,
    maxBytes: options.maxSpoolBytes,
    segmentBytes:
      options.segmentBytes ?? clamp(Math.floor(options.maxSpoolBytes / 8), 64 * 1024, 8 * 1024 * 1024),
    maxBufferedBytes: Math.min(options.maxSpoolBytes, MAX_BUFFERED_SPOOL_BYTES),
    log,
    onWritten: (records) => counters.countSpooled(records),
    onWriteFailed: (records) => drop('spool_write_error', records),
  });
  // What a previous process journaled and never settled goes to the spool, then its files go.
  const leftovers = Journal.leftovers(options.spoolDir);
  for (const record of leftovers.records)
    spool.append(record.msgId, record.payload, batchEventCount(record.msgId));
  if (leftovers.records.length > 0 || leftovers.damaged > 0) {
    log.warn(
      { batches: leftovers.records.length, damagedFiles: leftovers.damaged },
      'request events journaled by a previous process handed to the spool',
    );
  }
  void spool.idle().then(
    () => leftovers.remove(),
    () => undefined,
  );
  const journal = new Journal({
    dir: options.spoolDir,
    onWriteFailed: (err, events) => {
      counters.countUnjournaled(events);
      failLog.note('journal', errorMessage(err));
    },
  });
  const dropLog = new RateLimitedLog(log, 'request events dropped', LOG_INTERVAL_MS, () => ({
    spoolBytes: spool.bytes,
    maxSpoolBytes: options.maxSpoolBytes,
  }));
  const failLog = new RateLimitedLog(log, 'request event publish failed; spooled', LOG_INTERVAL_MS);

  // Declared before the link: a live connection reports "up" from the link's constructor.
  let replayer: Replayer | undefined;
  const link = options.nc
    ? new NatsLink(options.nc, { timeoutMs, log, onUp: () => replayer?.kick() })
    : undefined;
  replayer = link
    ? new Replayer({
        spool,
        link,
        subject: options.subject,
        concurrency: Math.max(1, Math.min(maxInFlight, 64)),
        timeoutMs,
        counters,
        log,
      })
    : undefined;
  if (!link) log.warn('NATS is not configured: request events are dropped');
  replayer?.kick();
  const timer = setInterval(() => {
    replayer?.kick();
    dropLog.tick();
    failLog.tick();
  }, options.retryIntervalMs ?? 2_000);
  timer.unref();

  function drop(reason: DropReason, records = 1): void {
    counters.countDropped(reason, records);
    dropLog.note(reason);
  }

  function toSpool(id: string, bytes: Uint8Array, count: number): void {
    try {
      const result = spool.append(id, bytes, count);
      if (result === 'full') drop('spool_full', count);
      else if (result === 'closed') drop('closed', count);
    } catch (err) {
      counters.countDropped('encode_error');
      dropLog.note('encode_error', errorMessage(err));
    }
  }

  /** Hands the event to the pump; false when NATS is down or the in-flight cap is reached. */
  function send(event: RequestEvent | LazyRequestEvent): boolean {
    if (!link?.js || inFlightEvents >= maxInFlight) return false;
    inFlightEvents += 1;
    handOff.push(event);
    if (!journalScheduled) {
      journalScheduled = true;
      setImmediate(journalize);
    }
    return true;
  }

  /** This turn's events: built, encoded (a batch in one pass) and written to the journal. */
  function journalize(): void {
    journalScheduled = false;
    const pending = handOff;
    handOff = [];
    for (const batch of encodeBatches(encoder, pending, notEncoded)) {
      const entry = journal.write(batch.id, batch.bytes, batch.count, batch.frame);
      chunks.push({ firstId: firstIdOf(batch.id), bytes: batch.bytes, count: batch.count, entry });
      chunkEvents += batch.count;
    }
    if (chunkEvents >= MAX_BATCH_EVENTS) pump();
    else if (chunkEvents > 0) pumpTimer ??= setTimeout(pump, lingerMs);
    if (keptWaiters.length > 0) {
      const waiters = keptWaiters;
      keptWaiters = [];
      // Events of this turn that went to the spool instead (NATS down, cap reached) are kept once
      // its write is done.
      const spooled = spool.written();
      for (const done of waiters) runKept(done, spooled);
    }
  }

  function runKept(done: () => void, spooled: Promise<void> | undefined): void {
    if (spooled) void spooled.then(done);
    else done();
  }

  // nats.js spends tens of microseconds starting a request (headers, reply mux, timer, a socket
  // write, then a PubAck to read), so that happens here, once per batch, not per event and not
  // inside the caller's publish(). So does the protobuf encoding: a whole batch in one pass into
  // one buffer. Lingering costs nothing on the response path: a response waits for its event's
  // journal write (whenKept), never for its batch.
  // Journaled chunks are joined into batches: RequestEventBatch frames concatenate into one
  // (repeated `events` append, `schema_version` is the same), so nothing is encoded twice.
  function pump(): void {
    clearTimeout(pumpTimer);
    pumpTimer = undefined;
    if (handOff.length > 0) journalize();
    const pending = chunks;
    chunks = [];
    chunkEvents = 0;
    for (let start = 0; start < pending.length; ) {
      let end = start;
      let bytes = 0;
      let count = 0;
      while (end < pending.length) {
        const chunk = pending[end] as Chunk;
        if (
          end > start &&
          (count + chunk.count > MAX_BATCH_EVENTS || bytes + chunk.bytes.length > MAX_BATCH_BYTES)
        )
          break;
        bytes += chunk.bytes.length;
        count += chunk.count;
        end++;
      }
      const group = pending.slice(start, end);
      start = end;
      const first = group[0] as Chunk;
      sendBatch({
        id: batchMsgId(first.firstId, count),
        bytes: group.length === 1 ? first.bytes : Buffer.concat(group.map((c) => c.bytes)),
        count,
        abandoned: false,
        journaled: group.map((c) => ({ entry: c.entry, count: c.count })),
      });
    }
  }

  function notEncoded(err: unknown): void {
    inFlightEvents -= 1;
    counters.countDropped('encode_error');
    dropLog.note('encode_error', errorMessage(err));
  }

  function sendBatch(entry: InFlight): void {
    inFlight.add(entry);
    const settled = () => {
      inFlight.delete(entry);
      inFlightEvents -= entry.count;
      // Acked or in the spool: the journal may forget it.
      for (const part of entry.journaled) journal.settle(part.entry, part.count);
    };
    const js = link?.js;
    if (!js) {
      settled();
      toSpool(entry.id, entry.bytes, entry.count);
      return;
    }
    entry.done = js
      .publish(options.subject, entry.bytes, { msgID: entry.id, timeout: timeoutMs })
      .then(
        () => {
          if (!entry.abandoned) counters.countPublished(entry.count);
        },
        (err: unknown) => {
          if (entry.abandoned) return;
          failLog.note('publish', errorMessage(err));
          toSpool(entry.id, entry.bytes, entry.count);
        },
      )
      .finally(settled);
  }

  async function settle(): Promise<void> {
    for (;;) {
      if (handOff.length > 0 || chunks.length > 0) pump();
      else if (inFlight.size > 0) await Promise.allSettled([...inFlight].map((entry) => entry.done));
      else {
        await spool.idle();
        if (handOff.length === 0 && chunks.length === 0 && inFlight.size === 0) return;
      }
    }
  }

  /** True when everything settled within the time. */
  function settleWithin(timeoutMs: number): Promise<boolean> {
    return within(settle(), timeoutMs);
  }

  let closing: Promise<void> | undefined;

  return {
    publish(event) {
      try {
        if (state === 'closed') return drop('closed');
        if (!link) return drop('no_nats');
        // Handed off as it is: the pump builds and encodes it with the rest of its batch.
        if (state === 'open' && send(event)) return;
        const built = typeof event === 'function' ? event() : event;
        toSpool(batchMsgId(built.id, 1), frameBatch([encoder.one(built)]), 1);
      } catch (err) {
        counters.countDropped('encode_error');
        dropLog.note('encode_error', errorMessage(err));
      }
    },

    whenKept(done) {
      if (journalScheduled) keptWaiters.push(done);
      else runKept(done, spool.written());
    },

    async flush(flushTimeoutMs) {
      if (!(await settleWithin(flushTimeoutMs)))
        log.warn({ inFlight: inFlightEvents, spoolBytes: spool.bytes }, 'request event flush timed out');
    },

    close(closeTimeoutMs) {
      closing ??= (async () => {
        const deadline = performance.now() + closeTimeoutMs;
        // While closing, new events go straight to the spool: nothing started now may need an ack.
        state = 'closing';
        clearInterval(timer);
        link?.stop();
        const replayStopped = replayer?.stop();
        await settleWithin(deadline - performance.now());
        // Unacked at the deadline: keep them on disk; a late ack only makes the replay a duplicate
        // that JetStream drops by message id.
        for (const entry of inFlight) {
          entry.abandoned = true;
          toSpool(entry.id, entry.bytes, entry.count);
        }
        await within(replayStopped ?? Promise.resolve(), deadline - performance.now());
        await spool.close();
        journal.close();
        state = 'closed';
        dropLog.flush();
        failLog.flush();
        log.info({ ...statsOf(), inFlight: inFlightEvents }, 'request event publisher closed');
      })();
      return closing;
    },

    stats: statsOf,
  };

  function statsOf(): EventStats {
    return {
      published: counters.published,
      spooled: counters.spooled,
      replayed: counters.replayed,
      dropped: counters.dropped,
      spoolBytes: spool.bytes,
      inFlight: inFlightEvents,
      damagedSegments: counters.damagedSegments,
      unjournaled: counters.unjournaled,
    };
  }
}

/** The first event's id of a batch id `<first id>+<count>`. */
function firstIdOf(batchId: string): string {
  const plus = batchId.lastIndexOf('+');
  return plus < 0 ? batchId : batchId.slice(0, plus);
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

/** True when `work` settled within `ms`; false when the time ran out first. */
async function within(work: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, ms));
  });
  try {
    return await Promise.race([work.then(() => true as const), expired]);
  } finally {
    clearTimeout(timer);
  }
}
