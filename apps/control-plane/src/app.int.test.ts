import { ALERTS_STREAM, CHANGES_STREAM, EntityKind, snapshotChecksum } from '@aigw/proto';
import { dependencyUp, expectStopsWithoutNats, test, waitFor, waitForDependency } from '@aigw/testkit';
import { startRestartableNats } from '@aigw/testkit/services';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { describe, expect } from 'vitest';
import { SNAPSHOT_TOKEN } from '../test/harness.js';
import { readSnapshot } from '../test/snapshot-client.js';
import { type ControlPlaneApp, createApp } from './app.js';
import { loadControlPlaneConfig } from './config.js';
import { migrations } from './db/migrations/index.js';
import { PLATFORM_SEED } from './model-pricing/model-pricing.seed.js';

const ADMIN_KEY = `aigw_app_test_${'a'.repeat(32)}`;

function controlPlane(env: Record<string, string>): ControlPlaneApp {
  return createApp(
    loadControlPlaneConfig({
      PORT: '0',
      GRPC_PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      BOOTSTRAP_ADMIN_KEY: ADMIN_KEY,
      SNAPSHOT_SERVICE_TOKEN: SNAPSHOT_TOKEN,
      ...env,
    }),
  );
}

describe('control-plane app', () => {
  test('migrates, is ready, streams a snapshot over gRPC, and stops cleanly', async ({ pg, nats }) => {
    const app = controlPlane({ DATABASE_URL: pg.url, NATS_URL: nats.url, NATS_NAMESPACE: nats.prefix });
    await app.start();
    const base = `http://127.0.0.1:${app.ports.http}`;
    try {
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      const ready = await fetch(`${base}/readyz`);
      // NATS is reported, not gating (next test): with it up the body names Postgres only.
      expect(await ready.json()).toEqual({ ready: true, checks: { postgres: { ok: true } } });
      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).toContain('app="control-plane"');
      expect(metrics).toContain('dependency_up{dependency="nats",app="control-plane"} 1');

      const tables = await pg.pool.query<{ table_name: string }>(
        "select table_name from information_schema.tables where table_schema = 'control' order by 1",
      );
      expect(tables.rows.map((r) => r.table_name)).toEqual(
        expect.arrayContaining([
          'api_keys',
          'organisations',
          'outbox',
          'schema_migrations',
          'schema_migrations_lock',
          'tombstones',
          'user_invites',
          'users',
          'workspace_members',
          'workspaces',
        ]),
      );

      // Bootstrap wrote the organisation and its admin key, then the platform price table its rows:
      // one entity and one outbox row each.
      const written = 2 + PLATFORM_SEED.prices.length;
      const first = await readSnapshot(app.ports.grpc);
      expect(first.map((c) => c.chunk?.$case)).toEqual(['header', 'batch', 'trailer']);
      expect(first[0]?.chunk).toMatchObject({
        $case: 'header',
        value: { schemaVersion: 1, revision: written, entityCount: written },
      });
      const batch = first[1]?.chunk;
      const entities = batch?.$case === 'batch' ? batch.value.entities : [];
      expect(
        entities
          .map((e) => e.kind)
          .filter((kind) => kind !== EntityKind.MODEL_PRICING)
          .sort(),
      ).toEqual([EntityKind.ORGANISATION, EntityKind.API_KEY]);
      expect(first[2]?.chunk).toEqual({
        $case: 'trailer',
        value: { entityCount: written, checksum: snapshotChecksum(entities), batchCount: 1 },
      });

      // The revision is the highest outbox id, so a gateway knows which change events it has.
      const update = await fetch(`${base}/v1/organisation`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'x-service-api-key': ADMIN_KEY },
        body: JSON.stringify({ name: 'Renamed' }),
      });
      expect(update.status).toBe(200);
      const after = await readSnapshot(app.ports.grpc);
      const header = after[0]?.chunk;
      // +1 change event, +1 audit record
      expect(header?.$case === 'header' && header.value.revision).toBe(written + 2);
      const unchanged = await readSnapshot(app.ports.grpc, written + 2);
      expect(unchanged[0]?.chunk).toMatchObject({ $case: 'header', value: { notModified: true } });
    } finally {
      await app.stop();
    }
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  });

  test('stays ready through a NATS outage: writes wait in the outbox, /readyz reports it', {
    timeout: 90_000,
  }, async ({ pg }) => {
    const natsServer = await startRestartableNats();
    const app = controlPlane({ DATABASE_URL: pg.url, NATS_URL: natsServer.url });
    await app.start();
    const base = `http://127.0.0.1:${app.ports.http}`;
    const unpublished = async () =>
      (
        await pg.pool.query<{ n: number }>(
          'select count(*)::int as n from control.outbox where published_at is null',
        )
      ).rows[0]?.n;
    try {
      await waitForDependency(base, 'control-plane', 'nats', true);
      await natsServer.stop();
      await waitForDependency(base, 'control-plane', 'nats', false);
      // Every replica pulled out of the Service at once would make a NATS outage an admin API outage.
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(200);
      const body = (await ready.json()) as { ready: boolean; degraded?: Record<string, { ok: boolean }> };
      expect(body.ready).toBe(true);
      expect(body.degraded?.nats?.ok).toBe(false);
      // A write is answered and its change waits in the outbox.
      const update = await fetch(`${base}/v1/organisation`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'x-service-api-key': ADMIN_KEY },
        body: JSON.stringify({ name: 'Renamed during the outage' }),
      });
      expect(update.status).toBe(200);
      expect(await unpublished()).toBeGreaterThan(0);

      await natsServer.start();
      await waitForDependency(base, 'control-plane', 'nats', true);
      const back = (await (await fetch(`${base}/readyz`)).json()) as { degraded?: unknown };
      expect(back.degraded).toBeUndefined();
      await waitFor(async () => ((await unpublished()) === 0 ? true : undefined), 'outbox published', 60_000);
    } finally {
      await app.stop();
      await natsServer.close();
    }
  });

  test('starts and serves while NATS is down; once NATS answers, sets up its streams and publishes the outbox', {
    timeout: 90_000,
  }, async ({ pg }) => {
    const natsServer = await startRestartableNats();
    await natsServer.stop();
    const app = controlPlane({ DATABASE_URL: pg.url, NATS_URL: natsServer.url });
    let probe: NatsConnection | undefined;
    const pending = async () =>
      (
        await pg.pool.query<{ subject: string }>(
          'select subject from control.outbox where published_at is null order by id',
        )
      ).rows.map((r) => r.subject);
    try {
      await app.start();
      const base = `http://127.0.0.1:${app.ports.http}`;
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({
        ready: true,
        checks: { postgres: { ok: true } },
        degraded: { nats: { ok: false, error: expect.stringMatching(/^not connected yet/) } },
      });
      expect(await dependencyUp(base, 'control-plane', 'nats')).toBe(false);
      // The SnapshotService serves (gateways load their snapshot from it, not from NATS).
      const snapshot = await readSnapshot(app.ports.grpc);
      expect(snapshot.map((c) => c.chunk?.$case)).toEqual(['header', 'batch', 'trailer']);
      // A write is answered; its change waits in the outbox.
      const update = await fetch(`${base}/v1/organisation`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'x-service-api-key': ADMIN_KEY },
        body: JSON.stringify({ name: 'Renamed before NATS' }),
      });
      expect(update.status).toBe(200);
      expect(await pending()).toContain('aigw.changes.v1.organisation');

      await natsServer.start();
      await waitForDependency(base, 'control-plane', 'nats', true, 30_000);
      probe = await connect({ servers: natsServer.url, name: 'app-test-probe' });
      const jsm = await jetstreamManager(probe);
      expect((await jsm.streams.info(CHANGES_STREAM)).config.subjects).toEqual(['aigw.changes.v1.*']);
      // The alert consumer was set up too: it owns the alerts stream.
      expect((await jsm.streams.info(ALERTS_STREAM)).config.name).toBe(ALERTS_STREAM);
      await waitFor(
        async () => ((await pending()).length === 0 ? true : undefined),
        'outbox published',
        30_000,
      );
      expect((await jsm.streams.info(CHANGES_STREAM)).state.messages).toBeGreaterThan(0);
    } finally {
      await probe?.close();
      await app.stop();
      await natsServer.close();
    }
  });

  test('stops promptly when NATS never came up', async ({ pg }) => {
    await expectStopsWithoutNats((natsUrl) => controlPlane({ DATABASE_URL: pg.url, NATS_URL: natsUrl }));
  });

  test('a second replica starting on the same database applies nothing and serves', async ({ pg, nats }) => {
    const first = controlPlane({ DATABASE_URL: pg.url, NATS_URL: nats.url, NATS_NAMESPACE: nats.prefix });
    const second = controlPlane({ DATABASE_URL: pg.url, NATS_URL: nats.url, NATS_NAMESPACE: nats.prefix });
    await Promise.all([first.start(), second.start()]);
    try {
      const applied = await pg.pool.query('select name from control.schema_migrations');
      expect(applied.rowCount).toBe(Object.keys(migrations).length);
      const organisations = await pg.pool.query('select id from control.organisations');
      expect(organisations.rowCount).toBe(1);
      expect((await fetch(`http://127.0.0.1:${second.ports.http}/readyz`)).status).toBe(200);
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
  });

  test('fails to start, and closes what it opened, when Postgres is unreachable', async ({ nats }) => {
    const app = controlPlane({ DATABASE_URL: 'postgres://nobody@127.0.0.1:9/none', NATS_URL: nats.url });
    await expect(app.start()).rejects.toThrow(/ECONNREFUSED/);
    await app.stop();
  });
});
