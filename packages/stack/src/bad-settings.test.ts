import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** Runs an app's built entry point with only the given environment. */
function run(app: string, env: Record<string, string>) {
  return spawnSync(process.execPath, [`${root}apps/${app}/dist/main.js`], {
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
}

describe('an app with bad settings', () => {
  it.each([
    [
      'gateway',
      { PORT: 'eighty', LOG_LEVEL: 'loud', REDIS_URL: 'localhost' },
      ['PORT', 'LOG_LEVEL', 'REDIS_URL'],
    ],
    [
      'control-plane',
      { PORT: '70000', LOG_LEVEL: 'verbose', NATS_URL: 'nats://127.0.0.1:4222' },
      ['PORT', 'LOG_LEVEL', 'DATABASE_URL', 'SNAPSHOT_SERVICE_TOKEN'],
    ],
    [
      'logger',
      { GRPC_PORT: 'x', LOG_RETENTION_DAYS: '0', DATABASE_URL: 'mysql://db' },
      ['GRPC_PORT', 'LOG_RETENTION_DAYS', 'DATABASE_URL', 'NATS_URL', 'LOGS_SERVICE_TOKEN'],
    ],
  ])('%s exits 1 naming every bad setting', (app, env, names) => {
    const result = run(app, env);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`${app}: cannot start, invalid settings:`);
    const named = [...result.stderr.matchAll(/^ {2}- ([A-Z_]+):/gm)].map((m) => m[1]);
    expect(named.sort()).toEqual([...names].sort());
  });
});

describe('an app whose internal gRPC service would be open', () => {
  const services = { DATABASE_URL: 'postgres://127.0.0.1:9/none', NATS_URL: 'nats://127.0.0.1:9' };
  it.each([
    [
      'control-plane',
      services,
      'SNAPSHOT_SERVICE_TOKEN',
      'SNAPSHOT_SERVICE_AUTH=disabled-i-understand-the-risk',
    ],
    ['logger', services, 'LOGS_SERVICE_TOKEN', 'LogsService'],
    ['gateway', { CONTROL_PLANE_GRPC_URL: '127.0.0.1:9' }, 'SNAPSHOT_SERVICE_TOKEN', 'SNAPSHOT_SERVICE_AUTH'],
  ])('%s refuses to start without its token, saying which setting and why', (app, env, setting, words) => {
    const result = run(app, env);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`${app}: cannot start, invalid settings:`);
    const named = [...result.stderr.matchAll(/^ {2}- ([A-Z_]+):/gm)].map((m) => m[1]);
    expect(named).toEqual([setting]);
    expect(result.stderr).toContain(words);
  });
});
