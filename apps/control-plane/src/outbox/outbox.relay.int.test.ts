// The outbox relay against real Postgres and NATS: order, exactly-once, crash and takeover, pruning.
import { ChangeEvent } from '@aigw/proto';
import { type NatsFixture, type TestkitFixtures, test } from '@aigw/testkit';
import { sql } from 'kysely';
import pg from 'pg';
import { beforeEach, describe, expect, vi } from 'vitest';
import {
  createOutboxRelay,
  ensureControlPlaneStreams,
  type OutboxRelayDeps,
  recordChange,
} from './outbox.js';
import { pruneOutbox } from './outbox.store.js';
import {
  countByMsgId,
  fileControlDatabase,
  openControlDatabase,
  readStream,
  sampleEntity,
  silentLog,
  TEST_ACTOR,
  unpublishedCount,
  writeChanges,
} from './outbox.test-support.js';

const control = fileControlDatabase();

/** A fresh changes stream (and an empty outbox) for each test: they share one file-scoped namespace. */
beforeEach<TestkitFixtures>(async ({ pg: server, nats }) => {
  const { db } = await control(server.url);
  await db.deleteFrom('outbox').execute();
  await ensureControlPlaneStreams(nats.jsm, 1, nats.prefix);
  await nats.jsm.streams.purge(nats.stream('AIGW_CHANGES'));
});

function relayOf(
  url: string,
  nats: NatsFixture,
  overrides: Partial<OutboxRelayDeps> & Pick<OutboxRelayDeps, 'db'>,
) {
  return createOutboxRelay({
    databaseUrl: url,
    js: nats.js,
    log: silentLog,
    pollMs: 50,
    namespace: nats.prefix,
    ...overrides,
  });
}

describe('outbox relay', () => {
  test('publishes every row once, in id order, and marks them published', async ({ pg: server, nats }) => {
    const cp = await control(server.url);
    const ids = await writeChanges(cp, 250);
    const relay = relayOf(server.url, nats, { db: cp.db, batchSize: 100 });
    await relay.start();
    try {
      await vi.waitFor(async () => expect(await unpublishedCount(cp)).toBe(0), { timeout: 15_000 });
    } finally {
      await relay.stop();
    }
    const events = await readStream(nats.jsm, nats.stream('AIGW_CHANGES'));
    expect(events.map((e) => Number(e.msgId))).toEqual(ids);
    for (const event of events) {
      expect(event.subject).toBe(`${nats.prefix}.aigw.changes.v1.config`);
      expect(ChangeEvent.decode(event.data).eventId).toBe(Number(event.msgId));
    }
    const rows = await cp.db.selectFrom('outbox').select('published_at').execute();
    expect(rows.every((r) => r.published_at instanceof Date)).toBe(true);
  });

  test('a lower id that commits after a higher one is still published', async ({ pg: server, nats }) => {
    const cp = await control(server.url);
    const relay = relayOf(server.url, nats, { db: cp.db });
    await relay.start();
    let commitSlow: () => void = () => undefined;
    const slowMayCommit = new Promise<void>((resolve) => {
      commitSlow = resolve;
    });
    let slowId: ((id: number) => void) | undefined;
    const slowIdKnown = new Promise<number>((resolve) => {
      slowId = resolve;
    });
    try {
      const slow = cp.db.transaction().execute(async (trx) => {
        const id = await recordChange(trx, { entity: sampleEntity(1), actor: TEST_ACTOR });
        slowId?.(id);
        await slowMayCommit;
        return id;
      });
      const lower = await slowIdKnown;
      const [higher] = await writeChanges(cp, 1);
      expect(higher).toBeGreaterThan(lower);
      await vi.waitFor(
        async () => {
          const events = await readStream(nats.jsm, nats.stream('AIGW_CHANGES'));
          expect(events.map((e) => Number(e.msgId))).toEqual([higher]);
        },
        { timeout: 10_000 },
      );
      commitSlow();
      await slow;
      await vi.waitFor(async () => expect(await unpublishedCount(cp)).toBe(0), { timeout: 10_000 });
      const events = await readStream(nats.jsm, nats.stream('AIGW_CHANGES'));
      expect(events.map((e) => Number(e.msgId))).toEqual([higher, lower]);
    } finally {
      commitSlow();
      await relay.stop();
    }
  });

  test('a relay killed after publishing but before marking: the next one re-publishes, and the stream stores each row once', async ({
    pg: server,
    nats,
  }) => {
    const cp = await control(server.url);
    const ids = await writeChanges(cp, 300);
    const doomed = await openControlDatabase(server.url, 'outbox-relay-doomed');
    // Holding SHARE on the table lets the relay read and publish, but blocks its `published_at` update.
    const blocker = new pg.Client({ connectionString: server.url });
    await blocker.connect();
    await blocker.query('begin');
    await blocker.query('lock table control.outbox in share mode');
    const first = relayOf(server.url, nats, { db: doomed.db, batchSize: 1_000 });
    try {
      await first.start();
      await vi.waitFor(
        async () => {
          const events = await readStream(nats.jsm, nats.stream('AIGW_CHANGES'));
          expect(events).toHaveLength(300);
        },
        { timeout: 15_000 },
      );
      expect(await unpublishedCount(cp)).toBe(300);
      // The crash: every session of that relay ends (its pool, and the one holding the lock).
      await blocker.query(
        `select pg_terminate_backend(pid) from pg_stat_activity
         where datname = current_database() and application_name = 'outbox-relay-doomed'`,
      );
      await blocker.query(
        `select pg_terminate_backend(pid) from pg_locks
         where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())`,
      );
      await vi.waitFor(() => expect(first.active).toBe(false), { timeout: 10_000 });
      await first.stop();
      await doomed.close();
      await blocker.query('rollback');
      expect(await unpublishedCount(cp)).toBe(300);

      const second = relayOf(server.url, nats, { db: cp.db, batchSize: 100 });
      await second.start();
      try {
        await vi.waitFor(async () => expect(await unpublishedCount(cp)).toBe(0), { timeout: 15_000 });
      } finally {
        await second.stop();
      }
      const events = await readStream(nats.jsm, nats.stream('AIGW_CHANGES'));
      expect(events.map((e) => Number(e.msgId))).toEqual(ids);
      expect([...countByMsgId(events, ids).values()].every((n) => n === 1)).toBe(true);
    } finally {
      await first.stop();
      await doomed.close();
      await blocker.end().catch(() => undefined);
    }
  });

  test('two relays: one is active; when it stops the other takes over', async ({ pg: server, nats }) => {
    const cp = await control(server.url);
    const a = relayOf(server.url, nats, { db: cp.db });
    const b = relayOf(server.url, nats, { db: cp.db });
    await a.start();
    await b.start();
    try {
      expect([a.active, b.active]).toEqual([true, false]);
      const before = await writeChanges(cp, 20);
      await vi.waitFor(async () => expect(await unpublishedCount(cp)).toBe(0), { timeout: 10_000 });
      expect(b.active).toBe(false);

      await a.stop();
      await vi.waitFor(() => expect(b.active).toBe(true), { timeout: 10_000 });
      const after = await writeChanges(cp, 20);
      await vi.waitFor(async () => expect(await unpublishedCount(cp)).toBe(0), { timeout: 10_000 });
      const events = await readStream(nats.jsm, nats.stream('AIGW_CHANGES'));
      expect(events.map((e) => Number(e.msgId))).toEqual([...before, ...after]);
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  test('pruning deletes old published rows but keeps unpublished ones and the newest row', async ({
    pg: server,
  }) => {
    const cp = await control(server.url);
    const { db } = cp;
    const ids = await writeChanges(cp, 6);
    const ago = (hours: number) => sql<Date>`now() - ${hours} * interval '1 hour'`;
    await db
      .updateTable('outbox')
      .set({ published_at: ago(48) })
      .where('id', 'in', ids.slice(0, 4).map(String))
      .execute();
    await db
      .updateTable('outbox')
      .set({ published_at: ago(1) })
      .where('id', '=', String(ids[4]))
      .execute();
    const remaining = async () =>
      (await db.selectFrom('outbox').select('id').orderBy('id').execute()).map((r) => Number(r.id));

    expect(await pruneOutbox(db, 24 * 3_600_000)).toBe(4);
    expect(await remaining()).toEqual(ids.slice(4));

    // Everything published long ago: the newest row stays, so max(id) (the snapshot revision) holds.
    await db
      .updateTable('outbox')
      .set({ published_at: ago(48) })
      .execute();
    expect(await pruneOutbox(db, 24 * 3_600_000)).toBe(1);
    expect(await remaining()).toEqual([ids[5]]);
    expect(await pruneOutbox(db, 0)).toBe(0);
    expect(await remaining()).toEqual([ids[5]]);
  });

  test('the active relay prunes on its own', async ({ pg: server, nats }) => {
    const cp = await control(server.url);
    const ids = await writeChanges(cp, 5);
    const relay = relayOf(server.url, nats, { db: cp.db, retentionMs: 0, pruneIntervalMs: 20 });
    await relay.start();
    try {
      await vi.waitFor(
        async () => {
          const rows = await cp.db.selectFrom('outbox').select(['id', 'published_at']).execute();
          expect(rows.map((r) => Number(r.id))).toEqual([ids[4]]);
          expect(rows[0]?.published_at).toBeInstanceOf(Date);
        },
        { timeout: 10_000 },
      );
    } finally {
      await relay.stop();
    }
  });
});
