// The console's static serving: pages and assets from the built folder with their headers, and a
// clear 503 in the error envelope when the console was not built.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHttpApp, createLogger, createMetrics, listen } from '@aigw/runtime';
import { afterEach, describe, expect, test } from 'vitest';
import { CONSOLE_CSP, mountConsole } from './console.js';

const log = createLogger({ app: 'console-test', level: 'silent' });
const servers: { close(ms: number): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close(1000)));
});

async function serve(dir: string): Promise<string> {
  const app = createHttpApp({
    log,
    metrics: createMetrics(`console-test-${servers.length}`),
    health: { checks: {}, draining: () => false },
    routes: (express) => mountConsole(express, { dir, log }),
  });
  const server = await listen(app, 0, '127.0.0.1');
  servers.push(server);
  return `http://127.0.0.1:${server.port}`;
}

describe('the console files', () => {
  test('every page path answers index.html; assets are immutable; all with the CSP', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'console-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>console</title>');
    writeFileSync(join(dir, 'assets', 'app-abc123.js'), 'export {}');
    const base = await serve(dir);
    for (const path of ['/console/', '/console/logs', '/console/logs/0b6f7c1e-0000-4000-8000-000000000000']) {
      const res = await fetch(`${base}${path}`);
      expect([path, res.status, res.headers.get('cache-control')]).toEqual([path, 200, 'no-cache']);
      expect(res.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
      expect(await res.text()).toContain('<title>console</title>');
    }
    const asset = await fetch(`${base}/console/assets/app-abc123.js`);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    // A missing asset is a 404, never the page (a stale page asking for an old hash fails visibly).
    expect((await fetch(`${base}/console/assets/app-old.js`)).status).toBe(404);
    expect((await fetch(`${base}/console/assets/../../../etc/passwd`)).status).not.toBe(200);
  });

  test('not built: 503 in the error envelope, with the command to run', async () => {
    const base = await serve(mkdtempSync(join(tmpdir(), 'console-empty-')));
    const res = await fetch(`${base}/console/logs`);
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('console_not_built');
    expect(body.error.message).toContain('pnpm build');
  });
});
