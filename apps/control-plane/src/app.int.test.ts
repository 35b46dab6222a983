import { EntityKind, snapshotChecksum } from '@aigw/proto';
import { test } from '@aigw/testkit';
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
      expect(await ready.json()).toEqual({
        ready: true,
        checks: { postgres: { ok: true }, nats: { ok: true } },
      });
      expect(await (await fetch(`${base}/metrics`)).text()).toContain('app="control-plane"');

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
