// Finding server executables: PATH first, then the versioned directories packagers use for Postgres.
import { accessSync, constants, readdirSync, realpathSync, statSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

export type BinaryName = 'postgres' | 'initdb' | 'redis-server' | 'nats-server';

/** Returns the absolute path of an executable, or undefined when it is not installed. */
export type BinaryLocator = (name: BinaryName) => string | undefined;

export interface LocatorOptions {
  /** Colon-separated search path; defaults to `process.env.PATH`. */
  readonly path?: string;
  /**
   * Parents of versioned Postgres installs, searched when `postgres` is not on PATH
   * (Debian puts the server in /usr/lib/postgresql/<major>/bin, off PATH).
   */
  readonly postgresRoots?: readonly string[];
}

const DEFAULT_POSTGRES_ROOTS = ['/usr/lib/postgresql', '/usr/pgsql', '/opt/homebrew/opt', '/usr/local/opt'];

export function createLocator(options: LocatorOptions = {}): BinaryLocator {
  const path = options.path ?? process.env.PATH ?? '';
  const roots = options.postgresRoots ?? DEFAULT_POSTGRES_ROOTS;
  return (name) => {
    const onPath = findOnPath(name, path);
    if (onPath) return onPath;
    if (name === 'postgres' || name === 'initdb') {
      for (const dir of postgresBinDirs(roots)) {
        const candidate = join(dir, name);
        if (isExecutable(candidate)) return candidate;
      }
    }
    return undefined;
  };
}

export interface PostgresBinaries {
  readonly postgres: string;
  readonly initdb: string;
}

/** `postgres` and an `initdb` of the same version: the sibling of the resolved server binary wins. */
export function locatePostgres(locate: BinaryLocator): PostgresBinaries | undefined {
  const postgres = locate('postgres');
  if (!postgres) return undefined;
  const sibling = join(dirname(realpathSync(postgres)), 'initdb');
  const initdb = isExecutable(sibling) ? sibling : locate('initdb');
  return initdb ? { postgres, initdb } : undefined;
}

function findOnPath(name: string, path: string): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** `<root>/<n>/bin`, `<root>-<n>/bin` and `<root>/postgresql@<n>/bin`, highest version first. */
function postgresBinDirs(roots: readonly string[]): string[] {
  const found: Array<{ dir: string; version: number }> = [];
  for (const root of roots) {
    const parent = dirname(root);
    const base = root.slice(parent.length + 1);
    for (const entry of safeReaddir(root)) {
      const version = versionOf(entry);
      if (version !== undefined) found.push({ dir: join(root, entry, 'bin'), version });
    }
    for (const entry of safeReaddir(parent)) {
      if (!entry.startsWith(`${base}-`)) continue;
      const version = versionOf(entry.slice(base.length + 1));
      if (version !== undefined) found.push({ dir: join(parent, entry, 'bin'), version });
    }
  }
  return found.sort((a, b) => b.version - a.version).map((entry) => entry.dir);
}

function versionOf(entry: string): number | undefined {
  const match = /^(?:postgresql@)?(\d+(?:\.\d+)?)$/.exec(entry);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
