// Stores a fetched batch of JetStream messages in ONE transaction and acknowledges them only after
// COMMIT. Unreadable messages and invalid events become dead letters in that same transaction.
// When the batch fails on its data (a constraint or data error), it is retried message by message
// and then event by event, so one bad event is set aside and the rest of its batch is stored. A sink
// may store a reduced form of a refused event instead (audit records are never dropped for their
// content) and a record standing for each dead letter (so audit readers see the gap).

import type { Logger } from '@aigw/runtime';
import type { JsMsg } from '@nats-io/jetstream';
import type { Kysely } from 'kysely';
import type { LogsDatabase } from '../db/schema.js';
import type { IngestMetrics } from './ingest-metrics.js';
import type { Sink, SinkItem, SinkReject } from './sink.js';

export interface BatchDeps<T> {
  readonly db: Kysely<LogsDatabase>;
  readonly sink: Sink<T>;
  /** The stream's real name (dead letters record it). */
  readonly stream: string;
  /** The delivery at which a message is set aside unprocessed (the consumer's max_deliver). */
  readonly maxDeliver: number;
  readonly metrics: IngestMetrics;
  readonly log: Logger;
}

interface Prepared<T> {
  readonly msg: JsMsg;
  readonly items: SinkItem<T>[];
  readonly rejects: SinkReject[];
}

/**
 * Postgres refused the data itself (class 22 data exception, 23 integrity constraint, 54 program
 * limit such as an index row too large): retrying the same rows cannot help. Anything else
 * (connection loss, deadlock, a missing table during a deploy) is retried as it is.
 */
export function isDataError(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && /^(22|23|54)/.test(code);
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function prepare<T>(deps: BatchDeps<T>, msg: JsMsg): Prepared<T> {
  const deliveries = msg.info.deliveryCount;
  if (deliveries >= deps.maxDeliver) {
    // The last delivery JetStream will make: keep the message rather than risk losing it to
    // whatever stopped the previous attempts (a crash while storing it, for instance).
    return {
      msg,
      items: [],
      rejects: [
        {
          index: -1,
          id: null,
          error: `delivered ${deliveries} times without being stored`,
          payload: msg.data,
        },
      ],
    };
  }
  try {
    return { msg, ...deps.sink.decode(msg.data) };
  } catch (err) {
    return {
      msg,
      items: [],
      rejects: [{ index: -1, id: null, error: `undecodable: ${errorText(err)}`, payload: msg.data }],
    };
  }
}

async function insertDeadLetters<T>(
  deps: BatchDeps<T>,
  trx: Kysely<LogsDatabase>,
  batch: readonly Prepared<T>[],
): Promise<number> {
  const rows = batch.flatMap((p) =>
    p.rejects.map((r) => ({
      stream: deps.stream,
      subject: p.msg.subject,
      stream_seq: p.msg.seq,
      event_index: r.index,
      event_id: r.id,
      deliveries: p.msg.info.deliveryCount,
      payload: Buffer.from(r.payload),
      error: r.error.slice(0, 2000),
    })),
  );
  if (rows.length === 0) return 0;
  await trx
    .insertInto('dead_letters')
    .values(rows)
    .onConflict((oc) => oc.columns(['stream', 'stream_seq', 'event_index']).doNothing())
    .execute();
  const standIn = deps.sink.deadLetterRecord;
  if (standIn) {
    const records = batch.flatMap((p) =>
      p.rejects.map((r) =>
        standIn({ stream: deps.stream, seq: p.msg.seq, index: r.index, error: r.error, payload: r.payload }),
      ),
    );
    await deps.sink.store(trx, records);
  }
  return rows.length;
}

async function storeTogether<T>(deps: BatchDeps<T>, batch: readonly Prepared<T>[]): Promise<void> {
  const values = batch.flatMap((p) => p.items.map((i) => i.value));
  const outcome = await deps.db.transaction().execute(async (trx) => {
    const stored = values.length > 0 ? await deps.sink.store(trx, values) : { inserted: 0, duplicates: 0 };
    const dead = await insertDeadLetters(deps, trx, batch);
    return { ...stored, dead };
  });
  for (const p of batch) p.msg.ack();
  const { events, messages } = deps.metrics;
  const stream = deps.sink.name;
  events.inc({ stream, outcome: 'inserted' }, outcome.inserted);
  events.inc({ stream, outcome: 'duplicate' }, outcome.duplicates);
  events.inc({ stream, outcome: 'dead_letter' }, outcome.dead);
  messages.inc({ stream }, batch.length);
  if (outcome.dead > 0) {
    const details = {
      stream: deps.stream,
      deadLetters: batch.flatMap((p) =>
        p.rejects.map((r) => ({ seq: p.msg.seq, index: r.index, error: r.error })),
      ),
    };
    // An audit dead letter is a gap in the compliance trail: an incident, alerted on (docs/logger.md).
    if (deps.sink.critical)
      deps.log.error(details, `${deps.sink.name} events set aside as dead letters: the trail misses them`);
    else deps.log.warn(details, 'events set aside as dead letters');
  }
}

/** The sink's reduced form of a refused value, stored on its own; null when there is none or it fails too. */
async function storeReduced<T>(deps: BatchDeps<T>, value: T, error: string) {
  const reduce = deps.sink.reduce;
  if (!reduce) return null;
  try {
    return await deps.db.transaction().execute((trx) => deps.sink.store(trx, [reduce(value, error)]));
  } catch (err) {
    if (!isDataError(err)) throw err;
    return null;
  }
}

/** Message by message, then event by event for a message that still fails on its data. */
async function isolate<T>(deps: BatchDeps<T>, batch: readonly Prepared<T>[]): Promise<void> {
  for (const prepared of batch) {
    try {
      await storeTogether(deps, [prepared]);
      continue;
    } catch (err) {
      if (!isDataError(err)) throw err;
    }
    const rejects = [...prepared.rejects];
    let inserted = 0;
    let duplicates = 0;
    for (const item of prepared.items) {
      try {
        const outcome = await deps.db.transaction().execute((trx) => deps.sink.store(trx, [item.value]));
        inserted += outcome.inserted;
        duplicates += outcome.duplicates;
      } catch (err) {
        if (!isDataError(err)) throw err;
        const reduced = await storeReduced(deps, item.value, errorText(err));
        if (reduced) {
          inserted += reduced.inserted;
          duplicates += reduced.duplicates;
          deps.log.warn(
            { stream: deps.stream, seq: prepared.msg.seq, index: item.index, err: errorText(err) },
            'event refused on its data; stored reduced',
          );
        } else
          rejects.push({ index: item.index, id: item.id, error: errorText(err), payload: item.payload() });
      }
    }
    deps.metrics.events.inc({ stream: deps.sink.name, outcome: 'inserted' }, inserted);
    deps.metrics.events.inc({ stream: deps.sink.name, outcome: 'duplicate' }, duplicates);
    // Every storable item is committed by now: what is left is its dead letters and the ack.
    await storeTogether(deps, [{ msg: prepared.msg, items: [], rejects }]);
  }
}

/** Stores and acknowledges `msgs`; throws (acknowledging nothing more) when it should be retried. */
export async function processBatch<T>(deps: BatchDeps<T>, msgs: readonly JsMsg[]): Promise<void> {
  const batch = msgs.map((msg) => prepare(deps, msg));
  const redelivered = msgs.filter((msg) => msg.redelivered).length;
  if (redelivered > 0) deps.metrics.redelivered.inc({ stream: deps.sink.name }, redelivered);
  try {
    await storeTogether(deps, batch);
  } catch (err) {
    if (!isDataError(err)) throw err;
    deps.log.warn(
      { stream: deps.stream, err: errorText(err) },
      'batch refused on its data; storing it event by event',
    );
    await isolate(deps, batch);
  }
}
