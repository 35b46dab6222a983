// A throwaway (or persistent) local nats-server with JetStream.
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type BinaryLocator, createLocator } from './binaries.js';
import { freePort } from './free-port.js';
import { localHandle } from './local-handle.js';
import { waitUntilReady, withPortRetry } from './ready.js';
import { spawnReaped } from './reaper.js';
import { natsReady } from './tcp-probe.js';
import type { LocalServiceHandle } from './types.js';

export interface LocalNatsOptions {
  /** JetStream store directory to keep; otherwise a temporary one removed on stop. */
  readonly dataDir?: string;
  readonly port?: number;
  /** Explicit nats-server path; otherwise found through `locate` (PATH). */
  readonly binary?: string;
  readonly locate?: BinaryLocator;
  readonly readyTimeoutMs?: number;
}

export async function startLocalNats(options: LocalNatsOptions = {}): Promise<LocalServiceHandle> {
  const started = Date.now();
  const binary = options.binary ?? (options.locate ?? createLocator())('nats-server');
  if (!binary) throw new Error('nats-server not found on PATH');
  const runDir = await mkdtemp(join(tmpdir(), 'aigw-nats-'));
  const storeDir = options.dataDir ? resolve(options.dataDir) : join(runDir, 'jetstream');
  const cleanup = () => rm(runDir, { recursive: true, force: true });

  try {
    mkdirSync(storeDir, { recursive: true });
    const server = await withPortRetry(options.port !== undefined, async () => {
      const port = options.port ?? (await freePort());
      // No -m: the monitoring port stays closed, one less port to collide on.
      const proc = await spawnReaped({
        command: binary,
        args: ['-js', '-sd', storeDir, '-a', '127.0.0.1', '-p', String(port)],
        logFile: join(runDir, 'nats.log'),
        cwd: runDir,
        removeOnExit: [runDir],
        graceMs: 5_000,
      });
      await waitUntilReady(`nats-server (${binary})`, proc, () => natsReady(port), options.readyTimeoutMs);
      return { proc, url: `nats://127.0.0.1:${port}` };
    });
    return localHandle('nats', server, started, cleanup);
  } catch (err) {
    await cleanup();
    throw err;
  }
}
