// The transactional outbox: a change event (or audit event) written in the caller's transaction,
// relayed to JetStream after commit by the outbox relay (ARCHITECTURE part 3; docs/outbox.md).
import {
  type Actor,
  AUDIT_SUBJECT,
  AuditEvent,
  ChangeEvent,
  changeSubject,
  type Entity,
  SCHEMA_VERSION,
} from '@aigw/proto';
import { type Kysely, sql } from 'kysely';
import type { ControlDatabase } from '../db/schema.js';
import { OUTBOX_CHANNEL } from './outbox.store.js';

export { createOutboxRelay, type OutboxRelay, type OutboxRelayDeps } from './outbox.relay.js';
export { OUTBOX_CHANNEL, pruneOutbox } from './outbox.store.js';
export { ensureControlPlaneStreams, natsRoute } from './outbox.streams.js';

export interface ChangeInput {
  readonly entity: Entity;
  readonly actor: Actor;
  readonly occurredAt?: Date;
}

/**
 * Records a change in `trx`. Write the entity first: its row lock makes a concurrent writer of the
 * same entity wait, so that writer's outbox id is allocated after this commit and per-entity ids
 * follow commit order. Returns the outbox id (the event id and revision).
 */
export async function recordChange(trx: Kysely<ControlDatabase>, input: ChangeInput): Promise<number> {
  const id = await allocateId(trx);
  const event: ChangeEvent = {
    schemaVersion: SCHEMA_VERSION,
    eventId: id,
    revision: id,
    occurredAtMs: (input.occurredAt ?? new Date()).getTime(),
    actor: input.actor,
    entity: input.entity,
  };
  await insertRow(trx, id, changeSubject(input.entity.kind), ChangeEvent.encode(event).finish());
  return id;
}

/** Records an audit event in `trx` (or on its own when given the database). Returns the outbox id. */
export async function recordAudit(trx: Kysely<ControlDatabase>, event: AuditEvent): Promise<number> {
  const id = await allocateId(trx);
  await insertRow(trx, id, AUDIT_SUBJECT, AuditEvent.encode(event).finish());
  return id;
}

// The id goes into the payload, so it is taken from the sequence before the insert.
async function allocateId(trx: Kysely<ControlDatabase>): Promise<number> {
  const result = await sql<{
    id: string;
  }>`select nextval(pg_get_serial_sequence('outbox', 'id')) as id`.execute(trx);
  const id = Number(result.rows[0]?.id);
  if (!Number.isSafeInteger(id)) throw new Error('outbox sequence returned no usable id');
  return id;
}

async function insertRow(trx: Kysely<ControlDatabase>, id: number, subject: string, payload: Uint8Array) {
  const bytes = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  await sql`
    with inserted as (insert into outbox (id, subject, payload) values (${id}, ${subject}, ${bytes}) returning id)
    select pg_notify(${OUTBOX_CHANNEL}, '') from inserted
  `.execute(trx);
}
