// The snapshot sync against a real gRPC SnapshotService (test-support server) and real JetStream:
// load, change events, buffering during a fetch, broken streams, anti-entropy, outages, LKG file.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EntityKind } from '@aigw/proto';
import { connectNats, createLogger } from '@aigw/runtime';
import { type NatsFixture, test } from '@aigw/testkit';
import { freePort, startLocalNats } from '@aigw/testkit/services';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, vi } from 'vitest';
import { apiKey, provider, tombstone, workspace } from './entities.test-support.js';
import { readLastKnownGood } from './lkg-file.js';
import { createSnapshotClient } from './snapshot-client.js';
import { commitAndPublish, publishChange, startTestControlPlane } from './snapshot-server.test-support.js';
import { SnapshotStore } from './snapshot-store.js';
import { SnapshotSync, type SnapshotSyncOptions } from './snapshot-sync.js';

const TOKEN = 'snapshot-token-for-tests';
const silent = createLogger({ app: 'test', level: 'silent' });
const wait = { timeout: 15_000, interval: 20 };
const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

let streamReady: Promise<unknown> | undefined;
function changesStream(nats: NatsFixture): Promise<unknown> {
  streamReady ??= nats.jsm.streams.add({
    name: nats.stream('AIGW_CHANGES'),
    subjects: [nats.subject('aigw', 'changes', 'v1', '*')],
  });
  return streamReady;
}

async function controlPlane(nats: NatsFixture, ...entities: Parameters<typeof startTestControlPlane>[0]) {
  await changesStream(nats);
  const cp = await startTestControlPlane(entities, { token: TOKEN });
  cleanups.push(() => cp.close());
  return cp;
}

interface Started {
  readonly store: SnapshotStore;
  readonly sync: SnapshotSync;
  readonly registry: Registry;
  readonly nc: NatsConnection | undefined;
}

async function startSync(
  cp: { address: string },
  options: Partial<SnapshotSyncOptions> & {
    natsUrl?: string | undefined;
    namespace?: string;
    token?: string;
  } = {},
): Promise<Started> {
  const store = new SnapshotStore();
  const registry = new Registry();
  const nc = options.natsUrl
    ? await connectNats({ url: options.natsUrl, name: 'snapshot-sync-test', log: silent })
    : undefined;
  const sync = new SnapshotSync({
    store,
    client: createSnapshotClient({
      address: cp.address,
      token: options.token ?? TOKEN,
      deadlineMs: 5_000,
      clientId: 'gateway@test',
    }),
    log: silent,
    registry,
    antiEntropyMs: 0,
    retryMinMs: 50,
    retryMaxMs: 400,
    lkgDebounceMs: 50,
    ...options,
  });
  sync.start(nc ? Promise.resolve(nc) : undefined);
  cleanups.push(async () => {
    await sync.stop();
    await nc?.close();
  });
  return { store, sync, registry, nc };
}

const withNats = (nats: NatsFixture) => ({ natsUrl: nats.url, namespace: nats.prefix });

async function loaded(s: Started): Promise<void> {
  await vi.waitFor(() => expect(s.store.loaded).toBe(true), wait);
}

describe('snapshot sync', () => {
  test('loads the snapshot with the service token, then applies newer changes only', async ({ nats }) => {
    const cp = await controlPlane(nats, apiKey('k1', 1, 'h1'), workspace('w1', 1), provider('p1', 1));
    const s = await startSync(cp, withNats(nats));
    await loaded(s);
    const first = s.store.current();
    expect(first.size).toBe(3);
    expect(first.revision).toBe(cp.revision);
    expect(first.apiKeyByHash('h1')?.id).toBe('k1');
    expect(cp.calls.authorization).toEqual([`Bearer ${TOKEN}`]);
    expect(s.sync.stats().resyncs).toEqual({ startup: 1 });

    await commitAndPublish(cp, nats.js, nats.prefix, apiKey('k1', 2, 'h1-rotated'));
    await vi.waitFor(() => expect(s.store.current().apiKeyByHash('h1-rotated')?.version).toBe(2), wait);
    expect(s.store.current().apiKeyByHash('h1')).toBeUndefined();
    expect(first.apiKeyByHash('h1')?.version).toBe(1);

    // An older and a duplicate version (other event ids), then a marker that must be applied.
    await publishChange(nats.js, nats.prefix, apiKey('k1', 1, 'h1'), cp.revision);
    await publishChange(nats.js, nats.prefix, apiKey('k1', 2, 'h1-dup'), cp.revision);
    await commitAndPublish(cp, nats.js, nats.prefix, provider('p1', 2, 'marker'));
    await vi.waitFor(
      () => expect(s.store.current().bySlug(EntityKind.PROVIDER, 'ws-1', 'marker')).toBeDefined(),
      wait,
    );
    expect(s.store.current().apiKeyByHash('h1-rotated')?.version).toBe(2);
    expect(s.store.current().apiKeyByHash('h1-dup')).toBeUndefined();
    expect(s.sync.stats()).toMatchObject({ changesApplied: 2, changesIgnored: 2, loads: 1 });

    // A tombstone hides the key and outlives a delayed older change.
    await commitAndPublish(cp, nats.js, nats.prefix, tombstone(EntityKind.API_KEY, 'k1', 3));
    await publishChange(nats.js, nats.prefix, apiKey('k1', 2, 'h1-rotated'), cp.revision);
    await commitAndPublish(cp, nats.js, nats.prefix, workspace('w1', 2));
    await vi.waitFor(() => expect(s.store.current().get(EntityKind.WORKSPACE, 'w1')?.version).toBe(2), wait);
    expect(s.store.current().apiKeyByHash('h1-rotated')).toBeUndefined();
    expect(s.store.current().get(EntityKind.API_KEY, 'k1')).toMatchObject({ tombstone: true, version: 3 });

    const metrics = await s.registry.metrics();
    expect(metrics).toContain(`gateway_snapshot_revision ${cp.revision}`);
    expect(metrics).toContain('gateway_snapshot_entities 3');
    expect(metrics).toContain('gateway_snapshot_changes_applied_total 4');
    expect(metrics).toContain('gateway_snapshot_resyncs_total{reason="startup"} 1');
    expect(metrics).toMatch(/gateway_snapshot_age_seconds \d/);
  });

  test('keeps the changes published while the snapshot streams', async ({ nats }) => {
    const cp = await controlPlane(nats, apiKey('k1', 1, 'h1'), workspace('w1', 1));
    let s: Started | undefined;
    cp.duringStream = async () => {
      cp.duringStream = undefined;
      // Committed after the snapshot was read: the stream still carries k1 v1 and no p9.
      await commitAndPublish(cp, nats.js, nats.prefix, provider('p9', 1, 'late'));
      await commitAndPublish(cp, nats.js, nats.prefix, apiKey('k1', 2, 'h1-v2'));
      await vi.waitFor(() => expect(s?.sync.stats().buffering).toBe(2), wait);
    };
    s = await startSync(cp, withNats(nats));
    await loaded(s);
    const held = s.store.current();
    expect(held.apiKeyByHash('h1-v2')?.version).toBe(2);
    expect(held.bySlug(EntityKind.PROVIDER, 'ws-1', 'late')?.id).toBe('p9');
    expect(held.revision).toBe(cp.revision);
    expect(s.sync.stats()).toMatchObject({ loads: 1, changesApplied: 2, buffering: 0 });
  });

  test('keeps the old snapshot when a stream is cut, corrupt or of an unknown schema', async ({ nats }) => {
    const cp = await controlPlane(nats, apiKey('k1', 1, 'h1'), workspace('w1', 1), provider('p1', 1));
    const s = await startSync(cp, { ...withNats(nats), antiEntropyMs: 100 });
    await loaded(s);
    const good = s.store.current();

    cp.commit(apiKey('k2', 1, 'h2')); // not published: only anti-entropy can find it
    for (const [mode, reason] of [
      ['truncate', 'incomplete'],
      ['bad_checksum', 'mismatch'],
      ['schema_v2', 'schema_version'],
    ] as const) {
      cp.mode = mode;
      await vi.waitFor(() => expect(s.sync.stats().loadFailures[reason]).toBeGreaterThanOrEqual(1), wait);
      expect(s.store.current()).toBe(good);
    }
    cp.mode = 'ok';
    await vi.waitFor(() => expect(s.store.current().apiKeyByHash('h2')?.id).toBe('k2'), wait);
    expect(s.sync.stats().resyncs.anti_entropy).toBeGreaterThanOrEqual(1);
    expect(await s.registry.metrics()).toMatch(
      /gateway_snapshot_load_failures_total\{reason="incomplete"\} [1-9]/,
    );
  });

  test('anti-entropy finds a missed change and follows a revision that moved alone', async ({ nats }) => {
    const cp = await controlPlane(nats, apiKey('k1', 1, 'h1'));
    const s = await startSync(cp, { ...withNats(nats), antiEntropyMs: 100 });
    await loaded(s);
    cp.commit(apiKey('k1', 2, 'h1-missed'));
    await vi.waitFor(() => expect(s.store.current().apiKeyByHash('h1-missed')).toBeDefined(), wait);
    const loads = s.sync.stats().loads;
    expect(s.sync.stats().resyncs.anti_entropy).toBeGreaterThanOrEqual(1);

    cp.revision += 5; // audit rows: no entity changed
    await vi.waitFor(() => expect(s.store.current().revision).toBe(cp.revision), wait);
    expect(s.sync.stats().loads).toBe(loads);
  });

  test('refetches on an event of an unknown schema version (not modified when current)', async ({ nats }) => {
    const cp = await controlPlane(nats, apiKey('k1', 1, 'h1'));
    const s = await startSync(cp, withNats(nats));
    await loaded(s);
    const held = s.store.current();
    await publishChange(nats.js, nats.prefix, apiKey('k1', 9, 'from-the-future'), cp.revision, 2);
    await vi.waitFor(() => expect(s.sync.stats().loads).toBe(2), wait);
    expect(s.sync.stats().resyncs.schema_version).toBe(1);
    expect(cp.calls.notModified).toBe(1);
    expect(s.store.current().apiKeyByHash('from-the-future')).toBeUndefined();
    expect(s.store.current().checksum()).toBe(held.checksum());
  });

  test('serves the last snapshot while the control plane is down and catches up when it is back', async ({
    nats,
  }) => {
    const cp = await controlPlane(nats, apiKey('k1', 1, 'h1'), workspace('w1', 1));
    const s = await startSync(cp, { ...withNats(nats), antiEntropyMs: 100 });
    await loaded(s);
    await cp.close();
    await commitAndPublish(cp, nats.js, nats.prefix, apiKey('k2', 1, 'h2'));
    await vi.waitFor(() => expect(s.store.current().apiKeyByHash('h2')).toBeDefined(), wait);
    // A refetch is asked for and fails: nothing is lost.
    await publishChange(nats.js, nats.prefix, workspace('w1', 5), cp.revision, 2);
    await vi.waitFor(() => expect(s.sync.stats().loadFailures.unavailable).toBeGreaterThanOrEqual(1), wait);
    expect(s.store.loaded).toBe(true);
    expect(s.store.current().apiKeyByHash('h1')).toBeDefined();
    expect(s.store.current().apiKeyByHash('h2')).toBeDefined();

    cp.commit(apiKey('k3', 1, 'h3'));
    await cp.restart();
    await vi.waitFor(() => expect(s.store.current().apiKeyByHash('h3')).toBeDefined(), wait);
  });

  test('refetches after NATS comes back from a restart', { timeout: 60_000 }, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'aigw-snapshot-nats-'));
    const port = await freePort();
    let server = await startLocalNats({ dataDir, port });
    cleanups.push(() => server.stop());
    const cp = await startTestControlPlane([apiKey('k1', 1, 'h1')], { token: TOKEN });
    cleanups.push(() => cp.close());
    // Anti-entropy off: only the reconnect can bring the change made while NATS was away.
    const s = await startSync(cp, { natsUrl: server.url, namespace: 'RESTART' });
    await loaded(s);
    const nc = s.nc as NatsConnection;
    await (await jetstreamManager(nc)).streams.add({
      name: 'RESTART_AIGW_CHANGES',
      subjects: ['RESTART.aigw.changes.v1.*'],
    });

    const disconnected = (async () => {
      for await (const status of nc.status()) if (status.type === 'disconnect') return;
    })();
    await server.stop();
    await disconnected;
    expect(s.store.current().apiKeyByHash('h1')?.id).toBe('k1');
    cp.commit(apiKey('k1', 2, 'h1-while-nats-was-down'));
    server = await startLocalNats({ dataDir, port });
    await vi.waitFor(
      () => expect(s.store.current().apiKeyByHash('h1-while-nats-was-down')).toBeDefined(),
      wait,
    );
    expect(s.sync.stats().resyncs.nats_reconnect).toBeGreaterThanOrEqual(1);

    // The subscription is live again after the reconnect.
    await publishChange(
      jetstream(nc),
      'RESTART',
      apiKey('k1', 3, 'h1-after'),
      cp.commit(apiKey('k1', 3, 'h1-after')),
    );
    await vi.waitFor(() => expect(s.store.current().apiKeyByHash('h1-after')).toBeDefined(), wait);
  });

  test('is never loaded with a wrong service token', async ({ nats }) => {
    const cp = await controlPlane(nats, apiKey('k1', 1, 'h1'));
    const s = await startSync(cp, { ...withNats(nats), token: 'not-the-right-token' });
    await vi.waitFor(() => expect(s.sync.stats().loadFailures.unavailable).toBeGreaterThanOrEqual(2), wait);
    expect(s.store.loaded).toBe(false);
    expect(s.store.current().size).toBe(0);
  });

  test('writes the last-known-good file and cold-starts from it with the control plane down', async ({
    nats,
  }) => {
    const lkgPath = join(await mkdtemp(join(tmpdir(), 'aigw-lkg-')), 'snapshot-v1.lkg');
    const cp = await controlPlane(nats, apiKey('k1', 1, 'h1'), provider('p1', 1, 'openai-prod'));
    const first = await startSync(cp, { ...withNats(nats), lkgPath });
    await loaded(first);
    await vi.waitFor(async () => expect((await readLastKnownGood(lkgPath))?.snapshot.size).toBe(2), wait);
    await commitAndPublish(cp, nats.js, nats.prefix, tombstone(EntityKind.API_KEY, 'k1', 2));
    await vi.waitFor(
      async () =>
        expect((await readLastKnownGood(lkgPath))?.snapshot.get(EntityKind.API_KEY, 'k1')?.tombstone).toBe(
          true,
        ),
      wait,
    );
    await cleanups.pop()?.();
    await cp.close();

    const cold = await startSync(cp, { ...withNats(nats), lkgPath });
    await loaded(cold);
    expect(cold.sync.stats().loadFailures.unavailable).toBeGreaterThanOrEqual(1);
    expect(cold.store.current().checksum()).toBe(first.store.current().checksum());
    expect(cold.store.current().bySlug(EntityKind.PROVIDER, 'ws-1', 'openai-prod')?.id).toBe('p1');
    expect(await cold.registry.metrics()).toContain('gateway_snapshot_loaded 1');

    cp.commit(apiKey('k4', 1, 'h4'));
    await cp.restart();
    await vi.waitFor(() => expect(cold.store.current().apiKeyByHash('h4')).toBeDefined(), wait);
  });

  test('without a control plane or file it stays unloaded and keeps trying', async () => {
    const dead = { address: `127.0.0.1:${await freePort()}` };
    const lkgPath = join(await mkdtemp(join(tmpdir(), 'aigw-lkg-')), 'absent.lkg');
    const s = await startSync(dead, { lkgPath });
    await vi.waitFor(() => expect(s.sync.stats().loadFailures.unavailable).toBeGreaterThanOrEqual(3), wait);
    expect(s.store.loaded).toBe(false);
  });
});
