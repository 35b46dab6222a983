import { randomUUID } from 'node:crypto';
import { AuditEvent, AuditOutcome, SCHEMA_VERSION } from '@aigw/proto';
import { test } from '@aigw/testkit';
import { describe, expect } from 'vitest';
import { count, eventually, testLogger, testStreams } from '../testing/logger-harness.js';
import { batchBytes, batchId, requestEvent } from '../testing/request-events.js';

describe('ingest', () => {
  test('stores request batches once, sets aside the poison message and the bad event, dedupes audit', async ({
    pg,
    nats,
  }) => {
    const app = testLogger(pg, nats);
    await app.start();
    const streams = testStreams(nats);
    const subject = streams.requests.subjects[0] ?? '';
    try {
      const events = Array.from({ length: 30 }, (_, i) => requestEvent(i));
      const first = events.slice(0, 20);
      await nats.js.publish(subject, batchBytes(first), { msgID: batchId(first) });
      // The same batch again (JetStream drops it) and an overlapping batch under another id.
      await nats.js.publish(subject, batchBytes(first), { msgID: batchId(first) });
      const overlap = events.slice(15, 30);
      await nats.js.publish(subject, batchBytes(overlap), { msgID: batchId(overlap) });
      // A message that is no RequestEventBatch at all.
      await nats.js.publish(subject, new Uint8Array([0xff, 0xff, 0xff, 0x0f]), { msgID: 'poison' });
      // A batch with one invalid event (no uuid id): the others of the batch are stored.
      const mixed = [requestEvent(100), requestEvent(101, undefined, 'not-a-uuid'), requestEvent(102)];
      await nats.js.publish(subject, batchBytes(mixed), { msgID: 'mixed' });

      await eventually(
        () => count(pg, 'select count(*) as n from logs.dead_letters'),
        (n) => n === 2,
      );
      await eventually(
        () => count(pg, 'select count(*) as n from logs.request_logs'),
        (n) => n === 32,
      );
      const letters = await pg.pool.query(
        'select event_index, event_id, error from logs.dead_letters order by event_index',
      );
      expect(letters.rows).toEqual([
        { event_index: -1, event_id: null, error: expect.stringContaining('undecodable') },
        { event_index: 1, event_id: 'not-a-uuid', error: 'id is not a uuid' },
      ]);
      const rollups = await pg.pool.query<{ n: string }>(
        'select sum(requests) as n from logs.request_rollups_hourly',
      );
      expect(Number(rollups.rows[0]?.n)).toBe(32);

      const stored = await pg.pool.query(
        'select model, ai_service, provider_slug, status_code, prompt_id, log_format, metadata, request_body from logs.request_logs where id = $1',
        [events[0]?.id],
      );
      expect(stored.rows[0]).toEqual({
        model: 'gpt-4o-mini',
        ai_service: 'openai',
        provider_slug: 'openai-main',
        status_code: 200,
        prompt_id: 'prompt-a',
        log_format: 'json',
        metadata: { _user: 'user-0', _prompt: 'prompt-a' },
        request_body: Buffer.from('{"n":0}'),
      });

      const audit = AuditEvent.fromPartial({
        schemaVersion: SCHEMA_VERSION,
        id: randomUUID(),
        occurredAtMs: Date.now(),
        organisationId: 'org-1',
        actor: { type: 1, userId: 'user-1', displayName: 'a@example.com' },
        action: 'api_keys.create',
        resourceType: 'api_key',
        resourceId: 'key-1',
        ip: '10.0.0.1',
        requestDetailsJson: '{"body":{"name":"k"}}',
        outcome: AuditOutcome.SUCCESS,
        statusCode: 200,
      });
      const auditBytes = AuditEvent.encode(audit).finish();
      // Two different message ids (an outbox re-publish past the duplicate window) carrying one record.
      await nats.js.publish(streams.audit.subjects[0] ?? '', auditBytes, { msgID: 'a-1' });
      await nats.js.publish(streams.audit.subjects[0] ?? '', auditBytes, { msgID: 'a-2' });

      await eventually(
        async () => {
          const auditInfo = await nats.jsm.consumers.info(streams.audit.name, 'logger-audit');
          return auditInfo.num_pending + auditInfo.num_ack_pending;
        },
        (n) => n === 0,
      );
      expect(await count(pg, 'select count(*) as n from logs.audit_logs')).toBe(1);
      const auditRow = await pg.pool.query(
        'select action, actor_user_id, ip, request_details from logs.audit_logs',
      );
      expect(auditRow.rows[0]).toEqual({
        action: 'api_keys.create',
        actor_user_id: 'user-1',
        ip: '10.0.0.1',
        request_details: { body: { name: 'k' } },
      });
      const metrics = await (await fetch(`http://127.0.0.1:${app.ports.http}/metrics`)).text();
      expect(metrics).toMatch(
        /logger_ingest_events_total\{stream="requests",outcome="inserted",app="logger"\} 32/,
      );
      expect(metrics).toMatch(
        /logger_ingest_events_total\{stream="requests",outcome="dead_letter",app="logger"\} 2/,
      );
      expect(metrics).toMatch(
        /logger_ingest_events_total\{stream="audit",outcome="duplicate",app="logger"\} 1/,
      );
    } finally {
      await app.stop();
    }
  });

  test('a batch failing on one event stores the rest; a batch failing for another reason is held, not dead-lettered', async ({
    pg,
    nats,
  }) => {
    // The file's tests share one database: start from empty tables.
    await pg.pool.query(
      'truncate logs.request_logs, logs.dead_letters, logs.request_rollups_hourly, logs.usage_ledger',
    );
    const app = testLogger(pg, nats);
    await app.start();
    const subject = testStreams(nats).requests.subjects[0] ?? '';
    try {
      // Valid in the event, refused by Postgres: a btree index row cannot hold an incompressible 10 kB trace id.
      const bad = requestEvent(2);
      bad.traceId = Array.from({ length: 2_000 }, () => Math.random().toString(36).slice(2, 7)).join('');
      const batch = [requestEvent(0), requestEvent(1), bad, requestEvent(3), requestEvent(4)];
      await nats.js.publish(subject, batchBytes(batch), { msgID: batchId(batch) });
      await eventually(
        () => count(pg, 'select count(*) as n from logs.dead_letters'),
        (n) => n === 1,
      );
      const letter = await pg.pool.query('select event_index, event_id, error from logs.dead_letters');
      expect(letter.rows).toEqual([
        { event_index: 2, event_id: bad.id, error: expect.stringContaining('index row') },
      ]);
      expect(await count(pg, 'select count(*) as n from logs.request_logs')).toBe(4);
      expect(await count(pg, 'select sum(requests) as n from logs.request_rollups_hourly')).toBe(4);

      // The rollup table gone (a broken deploy, say): nothing is data's fault, so nothing is set aside.
      await pg.pool.query('alter table logs.request_rollups_hourly rename to request_rollups_hourly_away');
      const held = [requestEvent(10), requestEvent(11)];
      await nats.js.publish(subject, batchBytes(held), { msgID: batchId(held) });
      await eventually(
        async () => {
          const metrics = await (await fetch(`http://127.0.0.1:${app.ports.http}/metrics`)).text();
          return Number(/logger_ingest_errors_total\{stream="requests"[^}]*\} (\d+)/.exec(metrics)?.[1] ?? 0);
        },
        (n) => n >= 2,
      );
      expect(await count(pg, 'select count(*) as n from logs.request_logs')).toBe(4);
      await pg.pool.query('alter table logs.request_rollups_hourly_away rename to request_rollups_hourly');
      await eventually(
        () => count(pg, 'select count(*) as n from logs.request_logs'),
        (n) => n === 6,
      );
      expect(await count(pg, 'select count(*) as n from logs.dead_letters')).toBe(1);
      expect(await count(pg, 'select sum(requests) as n from logs.request_rollups_hourly')).toBe(6);

      // Someone deletes the durable consumer: the logger sets it up again and replays the stream
      // (this file's earlier messages too): the new events are stored, and rollups still match rows.
      const streams = testStreams(nats);
      await nats.jsm.consumers.delete(streams.requests.name, 'logger-requests');
      const later = [requestEvent(20), requestEvent(21)];
      await nats.js.publish(subject, batchBytes(later), { msgID: batchId(later) });
      await eventually(
        () =>
          count(pg, 'select count(*) as n from logs.request_logs where id = any($1)', [
            later.map((e) => e.id),
          ]),
        (n) => n === 2,
      );
      await eventually(
        async () => {
          const info = await nats.jsm.consumers.info(streams.requests.name, 'logger-requests');
          return info.num_pending + info.num_ack_pending;
        },
        (n) => n === 0,
      );
      const rows = await count(pg, 'select count(*) as n from logs.request_logs');
      expect(await count(pg, 'select count(distinct id) as n from logs.request_logs')).toBe(rows);
      expect(await count(pg, 'select sum(requests) as n from logs.request_rollups_hourly')).toBe(rows);
    } finally {
      await app.stop();
    }
  });
});
