// The outbox writer against real Postgres (and, for the NOTIFY wake-up, a relay and real NATS).
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  AUDIT_SUBJECT,
  AuditEvent,
  AuditOutcome,
  ChangeEvent,
  changeSubject,
  EntityKind,
  SCHEMA_VERSION,
} from '@aigw/proto';
import { test } from '@aigw/testkit';
import { describe, expect, vi } from 'vitest';
import { createOutboxRelay, ensureControlPlaneStreams, recordAudit, recordChange } from './outbox.js';
import {
  fileControlDatabase,
  readStream,
  sampleEntity,
  silentLog,
  TEST_ACTOR,
  unpublishedCount,
} from './outbox.test-support.js';

const control = fileControlDatabase();

function auditEvent(): AuditEvent {
  return {
    schemaVersion: SCHEMA_VERSION,
    id: randomUUID(),
    occurredAtMs: Date.now(),
    organisationId: randomUUID(),
    workspaceId: '',
    actor: TEST_ACTOR,
    action: 'configs.update',
    resourceType: 'config',
    resourceId: randomUUID(),
    ip: '127.0.0.1',
    userAgent: 'vitest',
    requestMethod: 'PUT',
    requestPath: '/v1/configs/x',
    requestDetailsJson: '{}',
    outcome: AuditOutcome.SUCCESS,
    statusCode: 200,
    traceId: 'trace-1',
  };
}

describe('outbox writer', () => {
  test('writes rows whose payload is the event, with the outbox id as event id and revision', async ({
    pg,
  }) => {
    const { db } = await control(pg.url);
    const config = sampleEntity(3);
    const organisation = { ...sampleEntity(1), kind: EntityKind.ORGANISATION };
    const audit = auditEvent();
    const occurredAt = new Date('2025-01-02T03:04:05.678Z');
    const ids = await db
      .transaction()
      .execute(async (trx) => [
        await recordChange(trx, { entity: config, actor: TEST_ACTOR, occurredAt }),
        await recordChange(trx, { entity: organisation, actor: TEST_ACTOR }),
        await recordAudit(trx, audit),
      ]);
    expect(ids[1]).toBeGreaterThan(ids[0]!);
    expect(ids[2]).toBeGreaterThan(ids[1]!);

    const rows = await db
      .selectFrom('outbox')
      .selectAll()
      .where('id', 'in', ids.map(String))
      .orderBy('id')
      .execute();
    expect(rows.map((r) => Number(r.id))).toEqual(ids);
    expect(rows.map((r) => r.subject)).toEqual([
      'aigw.changes.v1.config',
      changeSubject(EntityKind.ORGANISATION),
      AUDIT_SUBJECT,
    ]);
    expect(rows.every((r) => r.published_at === null)).toBe(true);

    expect(ChangeEvent.decode(rows[0]!.payload)).toEqual({
      schemaVersion: SCHEMA_VERSION,
      eventId: ids[0],
      revision: ids[0],
      occurredAtMs: occurredAt.getTime(),
      actor: TEST_ACTOR,
      entity: config,
    });
    const second = ChangeEvent.decode(rows[1]!.payload);
    expect(second).toMatchObject({ eventId: ids[1], revision: ids[1], entity: organisation });
    expect(second.occurredAtMs).toBeGreaterThan(0);
    expect(AuditEvent.decode(rows[2]!.payload)).toEqual(audit);
  });

  test('a rolled-back transaction leaves no row', async ({ pg }) => {
    const { db } = await control(pg.url);
    const before = await db
      .selectFrom('outbox')
      .select(({ fn }) => fn.countAll<string>().as('n'))
      .executeTakeFirst();
    let recorded: number[] = [];
    const failure = await db
      .transaction()
      .execute(async (trx) => {
        recorded = [
          await recordChange(trx, { entity: sampleEntity(1), actor: TEST_ACTOR }),
          await recordAudit(trx, auditEvent()),
        ];
        throw new Error('the entity write failed');
      })
      .catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(Error);
    expect(recorded).toHaveLength(2);
    const left = await db.selectFrom('outbox').select('id').where('id', 'in', recorded.map(String)).execute();
    expect(left).toEqual([]);
    const after = await db
      .selectFrom('outbox')
      .select(({ fn }) => fn.countAll<string>().as('n'))
      .executeTakeFirst();
    expect(after?.n).toBe(before?.n);
  });

  test('the commit NOTIFY wakes the relay, which would otherwise sleep for ten minutes', async ({
    pg,
    nats,
  }) => {
    const database = await control(pg.url);
    await ensureControlPlaneStreams(nats.jsm, 1, nats.prefix);
    const relay = createOutboxRelay({
      db: database.db,
      databaseUrl: pg.url,
      js: nats.js,
      log: silentLog,
      pollMs: 600_000,
      namespace: nats.prefix,
    });
    await relay.start();
    try {
      expect(relay.active).toBe(true);
      // The rows of the tests above go out in the relay's first round.
      await vi.waitFor(async () => expect(await unpublishedCount(database)).toBe(0), { timeout: 10_000 });
      // Let that round finish, so only a wake-up can bring the next row out.
      await sleep(200);
      const id = await database.db
        .transaction()
        .execute((trx) => recordChange(trx, { entity: sampleEntity(7), actor: TEST_ACTOR }));
      await vi.waitFor(
        async () => {
          const events = await readStream(nats.jsm, nats.stream('AIGW_CHANGES'));
          expect(events.map((e) => e.msgId)).toContain(String(id));
        },
        { timeout: 10_000, interval: 50 },
      );
    } finally {
      await relay.stop();
    }
    expect(relay.active).toBe(false);
  });
});
