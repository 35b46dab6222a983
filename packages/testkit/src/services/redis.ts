// A throwaway (or persistent) local redis-server.
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type BinaryLocator, createLocator } from './binaries.js';
import { freePort } from './free-port.js';
import { localHandle } from './local-handle.js';
import { waitUntilReady, withPortRetry } from './ready.js';
import { spawnReaped } from './reaper.js';
import { redisReady } from './tcp-probe.js';
import type { LocalServiceHandle } from './types.js';

export interface LocalRedisOptions {
  /** Keep data here with an append-only file; otherwise nothing is written to disk. */
  readonly dataDir?: string;
  readonly port?: number;
  /** Explicit redis-server path; otherwise found through `locate` (PATH). */
  readonly binary?: string;
  readonly locate?: BinaryLocator;
  readonly readyTimeoutMs?: number;
}

export async function startLocalRedis(options: LocalRedisOptions = {}): Promise<LocalServiceHandle> {
  const started = Date.now();
  const binary = options.binary ?? (options.locate ?? createLocator())('redis-server');
  if (!binary) throw new Error('redis-server not found on PATH');
  const runDir = await mkdtemp(join(tmpdir(), 'aigw-redis-'));
  const dataDir = options.dataDir ? resolve(options.dataDir) : runDir;
  const persistence = options.dataDir ? ['--appendonly', 'yes'] : ['--appendonly', 'no'];
  const cleanup = () => rm(runDir, { recursive: true, force: true });

  try {
    mkdirSync(dataDir, { recursive: true });
    const server = await withPortRetry(options.port !== undefined, async () => {
      const port = options.port ?? (await freePort());
      const proc = await spawnReaped({
        command: binary,
        args: ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence, '--dir', dataDir],
        logFile: join(runDir, 'redis.log'),
        cwd: runDir,
        removeOnExit: [runDir],
        graceMs: 5_000,
      });
      await waitUntilReady(`redis-server (${binary})`, proc, () => redisReady(port), options.readyTimeoutMs);
      return { proc, url: `redis://127.0.0.1:${port}` };
    });
    return localHandle('redis', server, started, cleanup);
  } catch (err) {
    await cleanup();
    throw err;
  }
}
