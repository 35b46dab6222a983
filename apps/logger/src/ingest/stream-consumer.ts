// One durable JetStream pull consumer: fetches bounded batches, at most `maxInFlight` of them being
// stored at once (back-pressure: nothing is fetched while the slots are full), and holds a batch
// that fails for a reason other than its data (Postgres down, a deadlock) until it can be stored,
// extending its ack deadline meanwhile, so an outage never burns through max_deliver.
import {
  AckPolicy,
  type Consumer,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from '@nats-io/jetstream';
import { type BatchDeps, processBatch } from './batch-processor.js';

const NANOS_PER_MS = 1_000_000;
// JetStream API error code JSConsumerNotFoundErr.
const CONSUMER_NOT_FOUND = 10014;

export interface ConsumerSettings {
  /** Messages per fetch; with NATS's max payload (1 MiB) this bounds a batch's memory. */
  readonly batchMessages: number;
  /** Batches being stored at once. */
  readonly maxInFlight: number;
  readonly ackWaitMs: number;
  /** How long one fetch waits for messages (the server holds the pull open). */
  readonly fetchExpiresMs: number;
}

export interface StreamConsumerOptions<T> extends BatchDeps<T> {
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly durable: string;
  readonly settings: ConsumerSettings;
}

export interface StreamConsumer {
  /** Stops fetching and waits for the batches being stored (unstored ones are redelivered later). */
  stop(): Promise<void>;
  /** Pending (undelivered) and ack-pending message counts, for metrics. */
  lag(): Promise<{ pending: number; ackPending: number }>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function ensureConsumer<T>(options: StreamConsumerOptions<T>): Promise<void> {
  const { jsm, stream, durable, settings } = options;
  const config = {
    ack_policy: AckPolicy.Explicit,
    max_deliver: options.maxDeliver,
    ack_wait: settings.ackWaitMs * NANOS_PER_MS,
    max_ack_pending: settings.batchMessages * settings.maxInFlight * 2,
    max_batch: settings.batchMessages,
  };
  const exists = await jsm.consumers.info(stream, durable).then(
    () => true,
    (err: unknown) => {
      if ((err as { code?: unknown }).code === CONSUMER_NOT_FOUND || /consumer not found/i.test(String(err)))
        return false;
      throw err;
    },
  );
  if (exists) await jsm.consumers.update(stream, durable, config);
  else await jsm.consumers.add(stream, { ...config, durable_name: durable });
}

/**
 * The messages a fetch delivered, and the error that ended it if any. A fetch can fail after it
 * delivered messages (two idle heartbeats missed while the event loop was busy ends it with
 * "heartbeats missed"); those messages are held by this consumer and must still be stored.
 */
export async function collectFetch<M>(
  iterator: AsyncIterable<M>,
): Promise<{ msgs: M[]; error: unknown | undefined }> {
  const msgs: M[] = [];
  try {
    for await (const msg of iterator) msgs.push(msg);
    return { msgs, error: undefined };
  } catch (error) {
    return { msgs, error: error ?? new Error('fetch failed') };
  }
}

export async function startStreamConsumer<T>(options: StreamConsumerOptions<T>): Promise<StreamConsumer> {
  const { js, jsm, stream, durable, settings, log, metrics, sink } = options;
  await ensureConsumer(options);
  let consumer: Consumer = await js.consumers.get(stream, durable);
  let running = true;
  let current: { stop(): void } | undefined;
  const inFlight = new Set<Promise<void>>();

  async function store(msgs: JsMsg[]): Promise<void> {
    const timer = metrics.batchSeconds.startTimer({ stream: sink.name });
    // A slow batch (one stored event by event, a held one) keeps its messages: no redelivery to
    // another replica meanwhile, and no delivery spent.
    const keepAlive = setInterval(
      () => {
        for (const msg of msgs) msg.working();
      },
      Math.max(500, settings.ackWaitMs / 3),
    );
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          await processBatch(options, msgs);
          timer();
          return;
        } catch (err) {
          metrics.errors.inc({ stream: sink.name });
          if (!running) {
            // Not stored: handed back at once for another replica (or the next start).
            for (const msg of msgs) msg.nak();
            return;
          }
          if (attempt % 10 === 0)
            log.warn({ err, stream, attempt }, 'storing a batch failed; holding it and retrying');
          await sleep(Math.min(5_000, 100 * 2 ** Math.min(attempt, 6)));
        }
      }
    } finally {
      clearInterval(keepAlive);
    }
  }

  /**
   * Sets up a deleted consumer (or one of a re-created stream) again. The stream is the source of
   * truth and replaying it is harmless: inserts are idempotent.
   */
  async function recover(): Promise<void> {
    if (!running) return;
    try {
      await ensureConsumer(options);
      consumer = await js.consumers.get(stream, durable);
    } catch (err) {
      // Stream still missing: readiness reports it; try again next round.
      log.debug({ err, stream }, 'consumer not set up again yet');
    }
  }

  const loop = (async () => {
    let failures = 0;
    while (running) {
      if (inFlight.size >= settings.maxInFlight) {
        await Promise.race(inFlight);
        continue;
      }
      let msgs: JsMsg[] = [];
      try {
        const iterator = await consumer.fetch({
          max_messages: settings.batchMessages,
          expires: settings.fetchExpiresMs,
        });
        current = iterator;
        const fetched = await collectFetch(iterator);
        msgs = fetched.msgs;
        if (fetched.error !== undefined) throw fetched.error;
        failures = 0;
      } catch (err) {
        if (!running) break;
        if (failures++ % 10 === 0)
          log.warn({ err, stream, delivered: msgs.length }, 'fetching from JetStream failed; retrying');
        // What the fetch delivered before it failed is stored like any batch: left alone, it would
        // come back only after ack_wait (a minute by default), a gap in the logs.
        if (msgs.length > 0 && running) {
          const task = store(msgs).finally(() => inFlight.delete(task));
          inFlight.add(task);
        }
        await sleep(Math.min(5_000, 200 * failures));
        await recover();
        continue;
      } finally {
        current = undefined;
      }
      if (msgs.length === 0) {
        // An idle fetch is also what a deleted consumer looks like: check that it still exists.
        await consumer.info().then(() => undefined, recover);
        continue;
      }
      if (!running) {
        for (const msg of msgs) msg.nak();
        break;
      }
      const task = store(msgs).finally(() => inFlight.delete(task));
      inFlight.add(task);
    }
  })();

  return {
    async stop() {
      running = false;
      current?.stop();
      await loop;
      await Promise.all(inFlight);
    },
    async lag() {
      const info = await jsm.consumers.info(stream, durable);
      return { pending: info.num_pending, ackPending: info.num_ack_pending };
    },
  };
}
