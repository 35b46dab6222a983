import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { expect, it } from 'vitest';
import { isAlive } from '../../test/liveness.js';
import { startLocalPostgres } from './postgres.js';

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

it('a temporary server runs with the test settings and leaves nothing behind', async () => {
  const server = await startLocalPostgres();
  expect(server.kind).toBe('local');
  const [settings] = await query<{ fsync: string; max: string; dir: string; encoding: string }>(
    server.url,
    `select current_setting('fsync') as fsync, current_setting('max_connections') as max,
            current_setting('data_directory') as dir, pg_encoding_to_char(encoding) as encoding
     from pg_database where datname = current_database()`,
  );
  expect(settings).toMatchObject({ fsync: 'off', max: '200', encoding: 'UTF8' });
  if (process.getuid?.() === 0) expect(statSync(join(settings!.dir, 'PG_VERSION')).uid).not.toBe(0);
  await server.stop();
  expect(isAlive(server.pid)).toBe(false);
  expect(existsSync(settings!.dir)).toBe(false);
});

it('a persistent data directory keeps its data across restarts', async () => {
  const parent = mkdtempSync(join(tmpdir(), 'testkit-pg-keep-'));
  // As root the server runs as `postgres`, which must be able to enter the (0700) temp parent.
  chmodSync(parent, 0o755);
  const dataDir = join(parent, 'postgres');
  try {
    const first = await startLocalPostgres({ dataDir, persistent: true });
    await query(first.url, "create table kept (note text); insert into kept values ('survives')");
    await first.stop();
    expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(true);

    const second = await startLocalPostgres({ dataDir, persistent: true });
    try {
      expect(await query(second.url, 'select note from kept')).toEqual([{ note: 'survives' }]);
    } finally {
      await second.stop();
    }
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
});
