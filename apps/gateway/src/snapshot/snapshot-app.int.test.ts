// The gateway app with a control plane configured: /readyz waits for the snapshot (or the LKG file),
// /metrics shows it, app.snapshots follows change events; standalone mode has no snapshot at all.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from '@aigw/testkit';
import { freePort } from '@aigw/testkit/services';
import { describe, expect, vi } from 'vitest';
import { createApp, type GatewayApp } from '../app.js';
import { loadGatewayConfig } from '../config.js';
import { apiKey, workspace } from './entities.test-support.js';
import { writeLastKnownGood } from './lkg-file.js';
import { Snapshot } from './snapshot.js';
import { commitAndPublish, startTestControlPlane } from './snapshot-server.test-support.js';

const TOKEN = 'snapshot-token-for-the-gateway-app-tests';
const wait = { timeout: 15_000, interval: 50 };

async function gateway(env: Record<string, string>): Promise<{ app: GatewayApp; base: string }> {
  const app = createApp(
    loadGatewayConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      SNAPSHOT_SERVICE_TOKEN: TOKEN,
      EVENT_SPOOL_DIR: await mkdtemp(join(tmpdir(), 'gw-spool-')),
      ...env,
    }),
  );
  await app.start();
  return { app, base: `http://127.0.0.1:${app.port}` };
}

async function readiness(
  base: string,
): Promise<{ status: number; body: { checks: Record<string, unknown> } }> {
  const res = await fetch(`${base}/readyz`);
  return { status: res.status, body: (await res.json()) as { checks: Record<string, unknown> } };
}

describe('gateway app with a control plane', () => {
  test('is ready once the snapshot is loaded, follows changes and reports metrics', async ({ nats }) => {
    await nats.jsm.streams.add({
      name: nats.stream('AIGW_CHANGES'),
      subjects: [nats.subject('aigw', 'changes', 'v1', '*')],
    });
    const cp = await startTestControlPlane([apiKey('k1', 1, 'h1'), workspace('w1', 1)], { token: TOKEN });
    const { app, base } = await gateway({
      CONTROL_PLANE_GRPC_URL: cp.address,
      NATS_URL: nats.url,
      NATS_NAMESPACE: nats.prefix,
    });
    try {
      await vi.waitFor(async () => expect((await readiness(base)).status).toBe(200), wait);
      expect((await readiness(base)).body.checks.snapshot).toEqual({ ok: true });
      expect(app.snapshots?.current().apiKeyByHash('h1')?.id).toBe('k1');

      await commitAndPublish(cp, nats.js, nats.prefix, apiKey('k1', 2, 'h1-rotated'));
      await vi.waitFor(() => expect(app.snapshots?.current().apiKeyByHash('h1-rotated')).toBeDefined(), wait);
      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).toContain(`gateway_snapshot_revision{app="gateway"} ${cp.revision}`);
      expect(metrics).toContain('gateway_snapshot_entities{app="gateway"} 2');
      expect(metrics).toContain('gateway_snapshot_changes_applied_total{app="gateway"} 1');
      expect(cp.calls.authorization.every((a) => a === `Bearer ${TOKEN}`)).toBe(true);
    } finally {
      await app.stop();
      await cp.close();
    }
  });

  test('with the control plane down it is ready from the LKG file, and not ready without one', async () => {
    const dead = `127.0.0.1:${await freePort()}`;
    const dir = await mkdtemp(join(tmpdir(), 'gw-lkg-'));
    const lkg = join(dir, 'snapshot-v1.lkg');
    await writeLastKnownGood(lkg, Snapshot.of([apiKey('k1', 4, 'h1')], 12), Date.now() - 60_000);

    const cold = await gateway({ CONTROL_PLANE_GRPC_URL: dead, SNAPSHOT_LKG_PATH: lkg });
    try {
      await vi.waitFor(async () => expect((await readiness(cold.base)).status).toBe(200), wait);
      expect(cold.app.snapshots?.current().apiKeyByHash('h1')?.version).toBe(4);
      const metrics = await (await fetch(`${cold.base}/metrics`)).text();
      expect(metrics).toMatch(/gateway_snapshot_age_seconds\{app="gateway"\} (6\d|[7-9]\d|\d{3,})/);
      expect(metrics).toMatch(
        /gateway_snapshot_load_failures_total\{reason="unavailable",app="gateway"\} [1-9]/,
      );
    } finally {
      await cold.app.stop();
    }

    const empty = await gateway({ CONTROL_PLANE_GRPC_URL: dead, SNAPSHOT_LKG_PATH: join(dir, 'absent.lkg') });
    try {
      await vi.waitFor(async () => {
        const metrics = await (await fetch(`${empty.base}/metrics`)).text();
        expect(metrics).toMatch(
          /gateway_snapshot_load_failures_total\{reason="unavailable",app="gateway"\} [1-9]/,
        );
      }, wait);
      const { status, body } = await readiness(empty.base);
      expect(status).toBe(503);
      expect(body.checks.snapshot).toEqual({ ok: false, error: 'no snapshot loaded yet' });
      expect(empty.app.snapshots?.loaded).toBe(false);
      // A key cannot be checked yet: 503 with retry-after (SDKs retry it), never a 401 (they do not).
      const call = await fetch(`${empty.base}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-service-api-key': 'aigw_any',
          'x-service-provider': 'openai',
        },
        body: '{}',
      });
      expect(call.status).toBe(503);
      expect(call.headers.get('retry-after')).toBe('1');
      expect(call.headers.get('x-service-gateway-error')).toBe('true');
      expect(((await call.json()) as { error: { code: string } }).error.code).toBe('snapshot_not_loaded');
    } finally {
      await empty.app.stop();
    }
  });

  test('standalone mode has no snapshot and no snapshot check', async () => {
    const { app, base } = await gateway({});
    try {
      expect(app.snapshots).toBeUndefined();
      const { status, body } = await readiness(base);
      expect(status).toBe(200);
      expect(body.checks).toEqual({});
    } finally {
      await app.stop();
    }
  });
});
