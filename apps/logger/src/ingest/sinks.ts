// The sinks: request event batches and audit events.
import { AuditEvent, isSupportedSchemaVersion, RequestEvent } from '@aigw/proto';
import { auditLogRow, deadLetterAuditRow, invalidAuditEvent, reducedAuditRow } from './audit-row.js';
import { readBatch, withoutBodies } from './event-wire.js';
import { invalidRequestEvent, type RequestLogRow, requestLogRowOf } from './request-row.js';
import { storeRequestRows } from './request-store.js';
import { type Decoded, decodeOne, type Sink, type SinkItem, type SinkReject } from './sink.js';

/** One row per id, in id order (concurrent batches then lock alike). */
function uniqueById<R extends { id: string }>(rows: readonly R[]): R[] {
  return [...new Map(rows.map((r) => [r.id, r])).values()].sort((a, b) =>
    a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
  );
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export const requestSink: Sink<RequestLogRow> = {
  name: 'requests',
  decode(data): Decoded<RequestLogRow> {
    // Read off the wire rather than decoded whole: each event's bytes are kept as they came.
    const batch = readBatch(data);
    if (!isSupportedSchemaVersion(batch.schemaVersion)) {
      throw new Error(`unsupported batch schema_version ${batch.schemaVersion}`);
    }
    const items: SinkItem<RequestLogRow>[] = [];
    const rejects: SinkReject[] = [];
    batch.events.forEach((bytes, index) => {
      let id: string | null = null;
      try {
        const event = RequestEvent.decode(bytes);
        id = event.id || null;
        const invalid = invalidRequestEvent(event);
        if (invalid) throw new Error(invalid);
        const row = requestLogRowOf(event, withoutBodies(bytes));
        items.push({ index, id: row.id, value: row, payload: () => bytes });
      } catch (err) {
        rejects.push({ index, id, error: errorText(err), payload: bytes });
      }
    });
    return { items, rejects };
  },
  store: (trx, rows) => storeRequestRows(trx, rows),
};

export const auditSink: Sink<ReturnType<typeof auditLogRow>> = {
  name: 'audit',
  decode: (data) =>
    decodeOne(
      data,
      (d) => AuditEvent.decode(d),
      invalidAuditEvent,
      (e) => e.id,
      auditLogRow,
    ),
  async store(trx, rows) {
    const unique = uniqueById(rows);
    const inserted = await trx
      .insertInto('audit_logs')
      .values(unique)
      .onConflict((oc) => oc.column('id').doNothing())
      .returning('id')
      .execute();
    return { inserted: inserted.length, duplicates: rows.length - inserted.length };
  },
  reduce: reducedAuditRow,
  deadLetterRecord: deadLetterAuditRow,
  critical: true,
};
