import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createLocator, locatePostgres } from './binaries.js';

const root = mkdtempSync(join(tmpdir(), 'testkit-bin-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function executable(...parts: string[]): string {
  const file = join(root, ...parts);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, '#!/bin/sh\n');
  chmodSync(file, 0o755);
  return file;
}

const pgRoot = join(root, 'lib', 'postgresql');
executable('lib', 'postgresql', '13', 'bin', 'postgres');
executable('lib', 'postgresql', '13', 'bin', 'initdb');
const pg16 = executable('lib', 'postgresql', '16', 'bin', 'postgres');
const initdb16 = executable('lib', 'postgresql', '16', 'bin', 'initdb');
executable('lib', 'postgresql', '9.6', 'bin', 'postgres');
mkdirSync(join(pgRoot, 'not-a-version', 'bin'), { recursive: true });
const redis = executable('path-a', 'redis-server');
mkdirSync(join(root, 'path-b'), { recursive: true });
writeFileSync(join(root, 'path-b', 'nats-server'), 'not executable');

it('finds executables on the given PATH in order and skips non-executable files', () => {
  const locate = createLocator({
    path: [join(root, 'path-b'), join(root, 'path-a')].join(':'),
    postgresRoots: [],
  });
  expect(locate('redis-server')).toBe(redis);
  expect(locate('nats-server')).toBeUndefined();
});

it('falls back to the highest versioned Postgres directory', () => {
  const locate = createLocator({ path: '', postgresRoots: [pgRoot] });
  expect(locatePostgres(locate)).toEqual({ postgres: pg16, initdb: initdb16 });
});

it('pairs a PATH postgres with the initdb beside its real file', () => {
  mkdirSync(join(root, 'path-link'), { recursive: true });
  symlinkSync(join(pgRoot, '13', 'bin', 'postgres'), join(root, 'path-link', 'postgres'));
  const locate = createLocator({ path: join(root, 'path-link'), postgresRoots: [pgRoot] });
  expect(locatePostgres(locate)).toEqual({
    postgres: join(root, 'path-link', 'postgres'),
    initdb: join(pgRoot, '13', 'bin', 'initdb'),
  });
});

it('reports nothing when nothing is installed', () => {
  const locate = createLocator({ path: join(root, 'empty'), postgresRoots: [join(root, 'missing')] });
  expect(locatePostgres(locate)).toBeUndefined();
  expect(locate('redis-server')).toBeUndefined();
});
