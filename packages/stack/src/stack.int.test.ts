import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from '@aigw/testkit';
import { freePort } from '@aigw/testkit/services';
import { describe, expect } from 'vitest';
import { appNodeFlags } from './apps.js';
import { rawGrpcCall } from './raw-grpc.test-support.js';
import { accepts, runStack, waitForLine } from './stack-run.test-support.js';

describe('pnpm start', () => {
  test('brings up the three apps, each healthy, ready and measured, their gRPC closed and on loopback, and SIGTERM stops them all gracefully', async ({
    pg,
    redis,
    nats,
  }) => {
    const ports = {
      gateway: await freePort(),
      controlPlane: await freePort(),
      controlPlaneGrpc: await freePort(),
      logger: await freePort(),
      loggerGrpc: await freePort(),
    };
    const dataDir = mkdtempSync(join(tmpdir(), 'aigw-stack-'));
    // Reused from the environment; the LogsService token is left to the stack to generate.
    const snapshotToken = randomBytes(32).toString('base64url');
    const { child, output } = runStack({
      SNAPSHOT_SERVICE_TOKEN: snapshotToken,
      LOGS_SERVICE_TOKEN: '',
      LOGGER_SERVICE_TOKEN: '',
      DATABASE_URL: pg.url,
      REDIS_URL: redis.url,
      NATS_URL: nats.url,
      AIGW_DATA_DIR: dataDir,
      GATEWAY_PORT: String(ports.gateway),
      CONTROL_PLANE_PORT: String(ports.controlPlane),
      CONTROL_PLANE_GRPC_PORT: String(ports.controlPlaneGrpc),
      LOGGER_PORT: String(ports.logger),
      LOGGER_GRPC_PORT: String(ports.loggerGrpc),
      LOG_LEVEL: 'warn',
      // The demo provider has its own test (demo.int.test.ts); here it is off, as AIGW_DEMO=0 says.
      AIGW_DEMO: '0',
    });
    try {
      await waitForLine(output, /\[stack\] ready:/, child);
      expect(output()).toMatch(/\[stack\] postgres: from environment/);
      expect(output()).toContain(`gateway        http://127.0.0.1:${ports.gateway}/v1`);
      for (const [app, port] of [
        ['gateway', ports.gateway],
        ['control-plane', ports.controlPlane],
        ['logger', ports.logger],
      ] as const) {
        const base = `http://127.0.0.1:${port}`;
        expect((await fetch(`${base}/healthz`)).status, `${app} /healthz`).toBe(200);
        const ready = await fetch(`${base}/readyz`);
        expect(ready.status, `${app} /readyz`).toBe(200);
        const metrics = await (await fetch(`${base}/metrics`)).text();
        expect(metrics, `${app} /metrics`).toContain(`app="${app}"`);
      }
      // The quick start's admin key (kept in the data directory) works against the admin API.
      const adminKey = readFileSync(join(dataDir, 'admin.key'), 'utf8').trim();
      expect(output()).toContain(join(dataDir, 'admin.key'));
      expect(output()).not.toContain(adminKey);
      expect(output()).not.toMatch(/demo/);
      expect(existsSync(join(dataDir, 'demo.key'))).toBe(false);
      const organisation = await fetch(`http://127.0.0.1:${ports.controlPlane}/v1/organisation`, {
        headers: { 'x-service-api-key': adminKey },
      });
      expect(organisation.status).toBe(200);
      // The console's address is printed, and the built console is served there (issue 22).
      const consoleUrl = `http://127.0.0.1:${ports.controlPlane}/console/`;
      expect(output()).toContain(`console        ${consoleUrl}`);
      const consolePage = await fetch(consoleUrl);
      expect(consolePage.status).toBe(200);
      expect(await consolePage.text()).toContain('<title>AI gateway console</title>');

      // The internal ports listen on loopback only: 127.0.0.2 is this machine too, and is refused.
      for (const port of [ports.controlPlaneGrpc, ports.loggerGrpc, ports.logger]) {
        expect([port, await accepts('127.0.0.1', port)]).toEqual([port, true]);
        expect([port, await accepts('127.0.0.2', port)]).toEqual([port, false]);
      }
      // A raw call without the token, or with a wrong one, gets UNAUTHENTICATED and no message.
      const snapshot = `127.0.0.1:${ports.controlPlaneGrpc}`;
      const logs = `127.0.0.1:${ports.loggerGrpc}`;
      const wrong = { authorization: `Bearer ${randomBytes(32).toString('base64url')}` };
      for (const metadata of [{}, wrong]) {
        for (const [address, path] of [
          [snapshot, '/aigw.v1.SnapshotService/StreamSnapshot'],
          [snapshot, '/aigw.v1.SnapshotService/GetRevision'],
          [logs, '/aigw.v1.LogsService/ListLogs'],
          [logs, '/aigw.v1.LogsService/GetUsage'],
        ] as const) {
          expect([path, await rawGrpcCall(address, path, metadata)]).toEqual([
            path,
            { status: 16, messages: 0, bytes: 0 },
          ]);
        }
      }
      // The token from the environment opens the snapshot (header, batch, trailer)...
      const served = await rawGrpcCall(snapshot, '/aigw.v1.SnapshotService/StreamSnapshot', {
        authorization: `Bearer ${snapshotToken}`,
      });
      expect(served.status).toBe(0);
      expect(served.messages).toBeGreaterThanOrEqual(3);
      // ...and the generated LogsService token reached both the logger and the control plane.
      const logsRead = await fetch(`http://127.0.0.1:${ports.controlPlane}/v1/logs`, {
        headers: { 'x-service-api-key': adminKey },
      });
      expect(logsRead.status).toBe(200);
      expect(output()).not.toContain(snapshotToken);

      // A crashed gateway (SIGKILL) is started again; the control plane and logger keep running.
      const gatewayPid = Number(/\[stack\] gateway started \(pid (\d+)\)/.exec(output())?.[1]);
      expect(gatewayPid).toBeGreaterThan(0);
      // The gateway runs with its own Node flags (aigw.nodeFlags), as its image's CMD runs it.
      const flags = appNodeFlags(fileURLToPath(new URL('../../..', import.meta.url)), 'gateway');
      expect(flags).toContain('--max-semi-space-size=16');
      const cmdline = readFileSync(`/proc/${gatewayPid}/cmdline`, 'utf8').split('\0');
      expect(cmdline.slice(1, 1 + flags.length)).toEqual(flags);
      process.kill(gatewayPid, 'SIGKILL');
      await waitForLine(output, /\[stack\] gateway exited \(SIGKILL\); restarting it in 1 s/, child);
      await waitForLine(output, /gateway started \(pid \d+\)[\s\S]*gateway started \(pid \d+\)/, child);
      let back = 0;
      for (let i = 0; i < 300 && back !== 200; i++) {
        back = await fetch(`http://127.0.0.1:${ports.gateway}/readyz`).then(
          (res) => res.status,
          () => 0,
        );
        if (back !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(back).toBe(200);
      expect((await fetch(`http://127.0.0.1:${ports.controlPlane}/readyz`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${ports.logger}/readyz`)).status).toBe(200);
      expect(child.exitCode).toBeNull();
    } finally {
      // Ctrl-C in a terminal: SIGINT to the whole foreground group. Only the stack gets it (the
      // apps run in groups of their own), and it stops each app once, with a drain.
      process.kill(-(child.pid as number), 'SIGINT');
    }
    const [code] = await once(child, 'exit');
    // The stack SIGKILLs an app that has not drained within 10 s; exit code 0 for every app means
    // each one stopped on its own after SIGTERM.
    expect(output()).toMatch(/\[stack\] stopped: \{"gateway":0,"logger":0,"control-plane":0\}/);
    expect(code).toBe(0);
  });
});
