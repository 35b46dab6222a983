// Helpers of the outbox tests: a migrated control schema, sample changes, and reading a stream back.
import { randomUUID } from 'node:crypto';
import { type Database, openDatabase } from '@aigw/db';
import { type Actor, ActorType, type Entity, EntityKind } from '@aigw/proto';
import { createLogger, type Logger } from '@aigw/runtime';
import type { JetStreamManager } from '@nats-io/jetstream';
import { sql } from 'kysely';
import { afterAll } from 'vitest';
import { migrations } from '../db/migrations/index.js';
import { type ControlDatabase, SCHEMA } from '../db/schema.js';
import { recordChange } from './outbox.js';

export const TEST_ACTOR: Actor = {
  type: ActorType.USER,
  userId: randomUUID(),
  apiKeyId: '',
  displayName: 'tester',
};

export const silentLog: Logger = createLogger({ app: 'outbox-test', level: 'silent' });

export function openControlDatabase(
  url: string,
  applicationName = 'outbox-test',
): Promise<Database<ControlDatabase>> {
  return openDatabase<ControlDatabase>({ url, schema: SCHEMA, applicationName, migrations });
}

/**
 * One control database for a test file: opened on first use, closed after the file's tests. Call it
 * at the top of the file.
 */
export function fileControlDatabase(): (url: string) => Promise<Database<ControlDatabase>> {
  let database: Database<ControlDatabase> | undefined;
  afterAll(async () => {
    await database?.close();
  });
  return async (url) => {
    database ??= await openControlDatabase(url);
    return database;
  };
}

/** A config tombstone: the smallest entity, enough to tell changes apart by id and version. */
export function sampleEntity(version: number, id: string = randomUUID()): Entity {
  return {
    kind: EntityKind.CONFIG,
    id,
    version,
    tombstone: true,
    organisationId: randomUUID(),
    workspaceId: '',
    updatedAtMs: Date.now(),
  };
}

/** `count` changes, one transaction each (as the admin API writes them); returns their outbox ids. */
export async function writeChanges(database: Database<ControlDatabase>, count: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    ids.push(
      await database.db
        .transaction()
        .execute((trx) => recordChange(trx, { entity: sampleEntity(i + 1), actor: TEST_ACTOR })),
    );
  }
  return ids;
}

export async function unpublishedCount(database: Database<ControlDatabase>): Promise<number> {
  const result = await sql<{
    n: string;
  }>`select count(*) as n from outbox where published_at is null`.execute(database.db);
  return Number(result.rows[0]?.n);
}

export interface StoredEvent {
  readonly seq: number;
  readonly subject: string;
  readonly msgId: string;
  readonly data: Uint8Array;
}

/** Every message in the stream, in stream order, with its Nats-Msg-Id. */
export async function readStream(jsm: JetStreamManager, stream: string): Promise<StoredEvent[]> {
  const { state } = await jsm.streams.info(stream);
  const events: StoredEvent[] = [];
  if (state.messages === 0) return events;
  for (let seq = state.first_seq; seq <= state.last_seq; seq++) {
    const message = await jsm.streams.getMessage(stream, { seq });
    if (!message) continue;
    events.push({
      seq,
      subject: message.subject,
      msgId: message.header.get('Nats-Msg-Id'),
      data: message.data,
    });
  }
  return events;
}

/** How many times each of `ids` is in the stream (each should be 1). */
export function countByMsgId(events: readonly StoredEvent[], ids: readonly number[]): Map<number, number> {
  const counts = new Map(ids.map((id) => [id, 0]));
  for (const event of events) {
    const id = Number(event.msgId);
    const seen = counts.get(id);
    if (seen !== undefined) counts.set(id, seen + 1);
  }
  return counts;
}
