import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from '@aigw/testkit';
import { freePort } from '@aigw/testkit/services';
import { describe, expect } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const cli = fileURLToPath(new URL('./cli.ts', import.meta.url));

/** Runs the `pnpm start` entry point (from source) and collects its output. */
function runStack(env: Record<string, string>): { child: ChildProcess; output: () => string } {
  let output = '';
  const child = spawn(process.execPath, ['--conditions=@aigw/source', '--import', 'tsx', cli], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  return { child, output: () => output };
}

async function waitForLine(output: () => string, pattern: RegExp, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (pattern.test(output())) return;
    if (child.exitCode !== null) throw new Error(`stack exited early:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no ${pattern} in output:\n${output()}`);
}

describe('pnpm start', () => {
  test('brings up the three apps, each healthy, ready and measured, and SIGTERM stops them all gracefully', async ({
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
    const { child, output } = runStack({
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
      const organisation = await fetch(`http://127.0.0.1:${ports.controlPlane}/v1/organisation`, {
        headers: { 'x-service-api-key': adminKey },
      });
      expect(organisation.status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = await once(child, 'exit');
    // The stack SIGKILLs an app that has not drained within 10 s; exit code 0 for every app means
    // each one stopped on its own after SIGTERM.
    expect(output()).toMatch(/\[stack\] stopped: \{"gateway":0,"logger":0,"control-plane":0\}/);
    expect(code).toBe(0);
  });
});
