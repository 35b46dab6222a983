import { type SnapshotChunk, SnapshotServiceClient, snapshotChecksum } from '@aigw/proto';
import { test } from '@aigw/testkit';
import { credentials } from '@grpc/grpc-js';
import { describe, expect } from 'vitest';
import { type ControlPlaneApp, createApp } from './app.js';
import { loadControlPlaneConfig } from './config.js';

function controlPlane(env: Record<string, string>): ControlPlaneApp {
  return createApp(
    loadControlPlaneConfig({ PORT: '0', GRPC_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...env }),
  );
}

function readSnapshot(port: number, knownRevision = 0): Promise<SnapshotChunk[]> {
  const client = new SnapshotServiceClient(`127.0.0.1:${port}`, credentials.createInsecure());
  return new Promise((resolve, reject) => {
    const chunks: SnapshotChunk[] = [];
    const stream = client.streamSnapshot({ kinds: [], knownRevision, maxBatchSize: 0, clientId: 'test' });
    stream.on('data', (chunk: SnapshotChunk) => chunks.push(chunk));
    stream.on('error', reject);
    stream.on('end', () => {
      client.close();
      resolve(chunks);
    });
  });
}

describe('control-plane app', () => {
  test('migrates, is ready, streams a snapshot over gRPC, and stops cleanly', async ({ pg, nats }) => {
    const app = controlPlane({ DATABASE_URL: pg.url, NATS_URL: nats.url });
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
      expect(tables.rows.map((r) => r.table_name)).toEqual([
        'outbox',
        'schema_migrations',
        'schema_migrations_lock',
      ]);

      const empty = await readSnapshot(app.ports.grpc);
      expect(empty.map((c) => c.chunk?.$case)).toEqual(['header', 'trailer']);
      expect(empty[0]?.chunk).toMatchObject({
        $case: 'header',
        value: { schemaVersion: 1, revision: 0, entityCount: 0 },
      });
      expect(empty[1]?.chunk).toEqual({
        $case: 'trailer',
        value: { entityCount: 0, checksum: snapshotChecksum([]), batchCount: 0 },
      });

      // The revision is the highest outbox id, so a gateway knows which change events it has.
      await pg.pool.query(
        "insert into control.outbox (subject, payload) values ('aigw.changes.v1.config', '\\x00'), ('aigw.changes.v1.config', '\\x01')",
      );
      const after = await readSnapshot(app.ports.grpc);
      const header = after[0]?.chunk;
      expect(header?.$case === 'header' && header.value.revision).toBe(2);
      const unchanged = await readSnapshot(app.ports.grpc, 2);
      expect(unchanged[0]?.chunk).toMatchObject({ $case: 'header', value: { notModified: true } });
    } finally {
      await app.stop();
    }
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  });

  test('a second replica starting on the same database applies nothing and serves', async ({ pg, nats }) => {
    const first = controlPlane({ DATABASE_URL: pg.url, NATS_URL: nats.url });
    const second = controlPlane({ DATABASE_URL: pg.url, NATS_URL: nats.url });
    await Promise.all([first.start(), second.start()]);
    try {
      const migrations = await pg.pool.query('select name from control.schema_migrations');
      expect(migrations.rowCount).toBe(1);
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
