// With tracing on (docs/tracing.md), the request sink wrapped so each stored request event gets an
// `aigw.logger.ingest` span in the gateway's trace (the event's trace_parent), from its decoding to
// its commit, and the batch insert an `aigw.logger.store` span. A wrapper, so the sink and the
// consumer stay as they are; with tracing off it is not installed.
import { RequestEventBatch } from '@aigw/proto';
import { inMessagesSpan, startMessageSpan } from '@aigw/telemetry';
import type { RequestLogRow } from './request-row.js';
import type { Sink } from './sink.js';

interface Pending {
  readonly traceParent: string;
  readonly traceId: string;
  readonly decodedAt: number;
}

/** Decoded events waiting to be stored; beyond this the oldest are forgotten (never stored: dead letters). */
const MAX_PENDING = 100_000;

export function tracedRequestSink(sink: Sink<RequestLogRow>): Sink<RequestLogRow> {
  const pending = new Map<string, Pending>();
  return {
    ...sink,
    decode(data) {
      const decoded = sink.decode(data);
      // A second decode, for the trace contexts the rows do not keep: a cost of tracing only.
      const decodedAt = Date.now();
      for (const event of RequestEventBatch.decode(data).events) {
        if (event.traceParent === '' || event.id === '') continue;
        pending.set(event.id, { traceParent: event.traceParent, traceId: event.traceId, decodedAt });
      }
      while (pending.size > MAX_PENDING) pending.delete(pending.keys().next().value as string);
      return decoded;
    },
    async store(trx, rows) {
      const spans = rows.flatMap((row) => {
        const p = pending.get(row.id);
        if (!p) return [];
        const attributes = { 'aigw.request_id': row.id, 'aigw.trace_id': p.traceId };
        return [startMessageSpan('aigw.logger.ingest', p.traceParent, attributes, p.decodedAt)];
      });
      if (spans.length === 0) return sink.store(trx, rows);
      try {
        const outcome = await inMessagesSpan('aigw.logger.store', spans, { 'aigw.rows': rows.length }, () =>
          sink.store(trx, rows),
        );
        for (const row of rows) pending.delete(row.id);
        for (const span of spans) span.end();
        return outcome;
      } catch (err) {
        for (const span of spans) span.end(err instanceof Error ? err.message : String(err));
        throw err;
      }
    },
  };
}
