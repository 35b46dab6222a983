// Reads the outbox of a test database: decoded change and audit events, in id order.
import { AuditEvent, ChangeEvent } from '@aigw/proto';
import type pg from 'pg';

export async function auditEvents(pool: pg.Pool): Promise<AuditEvent[]> {
  const rows = await pool.query<{ payload: Buffer }>(
    "select payload from control.outbox where subject like '%aigw.audit.v1' order by id",
  );
  return rows.rows.map((r) => AuditEvent.decode(r.payload));
}

export async function changeEvents(pool: pg.Pool): Promise<ChangeEvent[]> {
  const rows = await pool.query<{ payload: Buffer }>(
    "select payload from control.outbox where subject like '%aigw.changes.v1.%' order by id",
  );
  return rows.rows.map((r) => ChangeEvent.decode(r.payload));
}
