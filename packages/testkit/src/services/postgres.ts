// A throwaway (or persistent) local Postgres server: initdb into a directory, start, wait, stop.
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import pg from 'pg';
import { type BinaryLocator, createLocator, locatePostgres, type PostgresBinaries } from './binaries.js';
import { freePort } from './free-port.js';
import { localHandle } from './local-handle.js';
import { waitUntilReady, withPortRetry } from './ready.js';
import { spawnReaped } from './reaper.js';
import { postgresRunAs, type RunAs } from './run-as.js';
import type { LocalServiceHandle } from './types.js';

export interface LocalPostgresOptions {
  /** Keep the cluster here: initialised on first use, reused afterwards. */
  readonly dataDir?: string;
  /** Keep `dataDir` on stop (default: true when `dataDir` is given). */
  readonly persistent?: boolean;
  /** Listen port (default: a free one). */
  readonly port?: number;
  /** Explicit binaries; otherwise found through `locate` (PATH, then /usr/lib/postgresql/<v>/bin). */
  readonly binaries?: PostgresBinaries;
  readonly locate?: BinaryLocator;
  readonly readyTimeoutMs?: number;
}

// Durability is worthless for test data and costs most of the write latency.
const SERVER_SETTINGS = [
  'listen_addresses=127.0.0.1',
  'fsync=off',
  'synchronous_commit=off',
  'full_page_writes=off',
  'max_connections=200',
];

export async function startLocalPostgres(options: LocalPostgresOptions = {}): Promise<LocalServiceHandle> {
  const started = Date.now();
  const binaries = options.binaries ?? locatePostgres(options.locate ?? createLocator());
  if (!binaries) throw new Error('postgres/initdb not found on PATH or in /usr/lib/postgresql/<version>/bin');
  if (options.persistent && !options.dataDir) throw new Error('a persistent Postgres needs a dataDir');
  const runAs = postgresRunAs();
  // Holds the unix socket and the log; short, because socket paths are limited to ~100 bytes.
  const runDir = await mkdtemp(join(tmpdir(), 'aigw-pg-'));
  const dataDir = options.dataDir ? resolve(options.dataDir) : join(runDir, 'data');
  const keepData = options.persistent ?? options.dataDir !== undefined;
  const cleanup = async () => {
    await rm(runDir, { recursive: true, force: true });
    if (!keepData && options.dataDir) await rm(dataDir, { recursive: true, force: true });
  };

  try {
    prepareDir(runDir, runAs);
    if (!existsSync(join(dataDir, 'PG_VERSION'))) {
      mkdirSync(dataDir, { recursive: true });
      if (runAs) assertReachable(dataDir, runAs);
      prepareDir(dataDir, runAs);
      await initdb(binaries.initdb, dataDir, runDir, runAs);
    }
    const server = await withPortRetry(options.port !== undefined, async () => {
      const port = options.port ?? (await freePort());
      const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
      const settings = SERVER_SETTINGS.flatMap((setting) => ['-c', setting]);
      const proc = await spawnReaped({
        command: binaries.postgres,
        args: ['-D', dataDir, '-p', String(port), '-k', runDir, ...settings],
        logFile: join(runDir, 'postgres.log'),
        cwd: runDir,
        removeOnExit: keepData ? [runDir] : [runDir, dataDir],
        uid: runAs?.uid,
        gid: runAs?.gid,
        stopSignal: 'SIGINT',
      });
      await waitUntilReady(
        `postgres (${binaries.postgres})`,
        proc,
        () => acceptsQueries(url),
        options.readyTimeoutMs,
      );
      return { proc, url };
    });
    return localHandle('postgres', server, started, cleanup);
  } catch (err) {
    await cleanup();
    throw err;
  }
}

function prepareDir(dir: string, runAs: RunAs | undefined): void {
  if (runAs) chownSync(dir, runAs.uid, runAs.gid);
  chmodSync(dir, 0o700);
}

/** As root the server runs as another user, who must be able to walk down to the data directory. */
function assertReachable(dir: string, runAs: RunAs): void {
  for (let current = dirname(dir); ; current = dirname(current)) {
    const { uid, gid, mode } = statSync(current);
    const canEnter = uid === runAs.uid ? mode & 0o100 : gid === runAs.gid ? mode & 0o010 : mode & 0o001;
    if (!canEnter) {
      throw new Error(
        `Postgres runs as user ${runAs.user} (it refuses root), who cannot enter ${current}: ` +
          `put the data directory elsewhere or run \`chmod o+x ${current}\``,
      );
    }
    if (current === dirname(current)) return;
  }
}

function initdb(command: string, dataDir: string, cwd: string, runAs: RunAs | undefined): Promise<void> {
  const args = ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync', '--locale=C', '-E', 'UTF8'];
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, {
      cwd,
      uid: runAs?.uid,
      gid: runAs?.gid,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-4000);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) resolvePromise();
      else
        reject(
          new Error(
            `initdb ${dataDir} failed (exit ${code}${runAs ? `, as ${runAs.user}` : ''}):\n${output}`,
          ),
        );
    });
  });
}

async function acceptsQueries(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  // A refused connection also emits 'error' on the client; the rejected connect() carries it.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } finally {
    await client.end().catch(() => undefined);
  }
}
