// The outbox relay through outages, against servers of its own that it stops and restarts: NATS
// during writes (nothing lost, nothing stored twice) and Postgres (the relay recovers).
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectNats } from '@aigw/runtime';
import { test } from '@aigw/testkit';
import { freePort, startLocalNats, startLocalPostgres } from '@aigw/testkit/services';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { afterAll, describe, expect, vi } from 'vitest';
import { createOutboxRelay, ensureControlPlaneStreams } from './outbox.js';
import {
  countByMsgId,
  openControlDatabase,
  readStream,
  silentLog,
  unpublishedCount,
  writeChanges,
} from './outbox.test-support.js';

const dirs: string[] = [];
async function dir(): Promise<string> {
  const created = await mkdtemp(join(tmpdir(), 'aigw-outbox-'));
  // Postgres runs as another user when tests run as root: it must be able to enter the directory.
  await chmod(created, 0o755);
  dirs.push(created);
  return created;
}
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

/** Writes retried until Postgres accepts them again (the pool's old connections died with the server). */
async function eventually<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      if (attempt >= 50) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

describe('outbox relay outages', () => {
  test('NATS stops and restarts during writes: every row is stored once, in id order', {
    timeout: 90_000,
  }, async ({ pg }) => {
    const dataDir = await dir();
    const port = await freePort();
    let server = await startLocalNats({ dataDir, port });
    const database = await openControlDatabase(pg.url);
    const nc = await connectNats({ url: server.url, name: 'outbox-outage-test', log: silentLog });
    const relay = createOutboxRelay({
      db: database.db,
      databaseUrl: pg.url,
      js: jetstream(nc),
      log: silentLog,
      pollMs: 50,
      publishTimeoutMs: 1_000,
      maxBackoffMs: 500,
    });
    try {
      await ensureControlPlaneStreams(await jetstreamManager(nc), 1);
      await relay.start();
      const ids = await writeChanges(database, 100);
      const stopping = server.stop();
      ids.push(...(await writeChanges(database, 100)));
      await stopping;
      ids.push(...(await writeChanges(database, 100)));
      expect(await unpublishedCount(database)).toBeGreaterThan(0);
      server = await startLocalNats({ dataDir, port });
      ids.push(...(await writeChanges(database, 100)));
      await vi.waitFor(async () => expect(await unpublishedCount(database)).toBe(0), {
        timeout: 60_000,
        interval: 100,
      });

      const events = await readStream(await jetstreamManager(nc), 'AIGW_CHANGES');
      expect(events.map((e) => Number(e.msgId))).toEqual(ids);
      expect([...countByMsgId(events, ids).values()].every((n) => n === 1)).toBe(true);
    } finally {
      await relay.stop();
      await nc.close();
      await database.close();
      await server.stop();
    }
  });

  test('Postgres restarts: the relay takes its lock again and publishes what was written since', {
    timeout: 90_000,
  }, async ({ nats }) => {
    const dataDir = join(await dir(), 'data');
    const port = await freePort();
    let server = await startLocalPostgres({ dataDir, port });
    const database = await openControlDatabase(server.url);
    await ensureControlPlaneStreams(nats.jsm, 1, nats.prefix);
    const relay = createOutboxRelay({
      db: database.db,
      databaseUrl: server.url,
      js: nats.js,
      log: silentLog,
      pollMs: 50,
      maxBackoffMs: 500,
      namespace: nats.prefix,
    });
    try {
      await relay.start();
      const ids = await writeChanges(database, 50);
      await vi.waitFor(async () => expect(await unpublishedCount(database)).toBe(0), { timeout: 15_000 });

      await server.stop();
      await vi.waitFor(() => expect(relay.active).toBe(false), { timeout: 15_000 });
      server = await startLocalPostgres({ dataDir, port });
      for (let i = 0; i < 50; i++) ids.push(...(await eventually(() => writeChanges(database, 1))));
      await vi.waitFor(() => expect(relay.active).toBe(true), { timeout: 30_000 });
      await vi.waitFor(async () => expect(await unpublishedCount(database)).toBe(0), { timeout: 30_000 });

      const events = await readStream(nats.jsm, nats.stream('AIGW_CHANGES'));
      expect(events.map((e) => Number(e.msgId))).toEqual(ids);
    } finally {
      await relay.stop();
      await database.close();
      await server.stop();
    }
  });
});
