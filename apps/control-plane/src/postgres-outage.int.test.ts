// The admin API while Postgres is down (issue 23 item 6), against a Postgres of its own that the
// test stops and starts again: every answer is 503 `service_unavailable` with retry-after, never a
// 500; readiness says not ready; once Postgres is back the same requests succeed.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from '@aigw/testkit';
import { freePort, startLocalPostgres } from '@aigw/testkit/services';
import { describe, expect, vi } from 'vitest';
import { SNAPSHOT_TOKEN } from '../test/harness.js';
import { createApp } from './app.js';
import { loadControlPlaneConfig } from './config.js';

const ADMIN_KEY = `aigw_pg_outage_${'b'.repeat(32)}`;

describe('admin API with Postgres down', () => {
  test('answers 503 with retry-after (never 500) while Postgres is stopped, and serves again once it is back', {
    timeout: 90_000,
  }, async ({ nats }) => {
    const root = await mkdtemp(join(tmpdir(), 'aigw-cp-pg-outage-'));
    // Postgres runs as another user when tests run as root: it must be able to enter the directory.
    await chmod(root, 0o755);
    const dataDir = join(root, 'data');
    const port = await freePort();
    let server = await startLocalPostgres({ dataDir, port });
    const app = createApp(
      loadControlPlaneConfig({
        PORT: '0',
        GRPC_PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        BOOTSTRAP_ADMIN_KEY: ADMIN_KEY,
        SNAPSHOT_SERVICE_TOKEN: SNAPSHOT_TOKEN,
        DATABASE_URL: server.url,
        NATS_URL: nats.url,
        NATS_NAMESPACE: nats.prefix,
      }),
    );
    await app.start();
    const base = `http://127.0.0.1:${app.ports.http}`;
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${base}${path}`, {
        method,
        headers: { 'x-service-api-key': ADMIN_KEY, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const requests = [
      ['GET', '/v1/organisation'],
      ['GET', '/v1/workspaces'],
      ['POST', '/v1/workspaces', { name: 'during the outage' }],
    ] as const;
    try {
      expect((await call('GET', '/v1/organisation')).status).toBe(200);

      await server.stop();
      // Pooled connections die with the server, new ones are refused: each kind of failure, a few times.
      const answers: Array<{ request: string; status: number; retryAfter: string | null; code: unknown }> =
        [];
      for (let round = 0; round < 5; round++)
        for (const [method, path, body] of requests) {
          const res = await call(method, path, body);
          const json = (await res.json()) as { error?: { code?: unknown } };
          answers.push({
            request: `${method} ${path}`,
            status: res.status,
            retryAfter: res.headers.get('retry-after'),
            code: json.error?.code,
          });
        }
      for (const answer of answers)
        expect(answer).toEqual({
          request: answer.request,
          status: 503,
          retryAfter: '5',
          code: 'service_unavailable',
        });
      expect((await fetch(`${base}/readyz`)).status).toBe(503);

      server = await startLocalPostgres({ dataDir, port });
      await vi.waitFor(async () => expect((await call('GET', '/v1/workspaces')).status).toBe(200), {
        timeout: 30_000,
        interval: 200,
      });
      // The refused creations left nothing behind: no row, so no change event either (one transaction).
      const during = await call('GET', `/v1/workspaces?name=${encodeURIComponent('during the outage')}`);
      expect(((await during.json()) as { total: number }).total).toBe(0);
      expect((await call('POST', '/v1/workspaces', { name: 'after the outage' })).status).toBe(201);
      const after = await call('GET', `/v1/workspaces?name=${encodeURIComponent('after the outage')}`);
      expect(((await after.json()) as { total: number }).total).toBe(1);
    } finally {
      await app.stop();
      await server.stop();
      await rm(root, { recursive: true, force: true });
    }
  });
});
