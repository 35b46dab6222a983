// A connection Postgres ends while the app holds it (failover, an operator's pg_terminate_backend,
// a database dropped at shutdown) must not crash the process. pg-pool listens for errors on idle
// connections only; a checked-out connection without an 'error' listener turns the server's FATAL
// into an uncaught exception (seen as "terminating connection due to administrator command").
import { test } from '@aigw/testkit';
import { sql } from 'kysely';
import { describe, expect } from 'vitest';
import { createDatabase } from './database.js';

describe('the database pool', () => {
  test('every connection it hands out has an error listener, and the pool goes on after one is terminated', async ({
    pg,
  }) => {
    const database = createDatabase({ url: pg.url, schema: 'public', applicationName: 'terminated-test' });
    try {
      const client = await database.pool.connect();
      expect(client.listenerCount('error')).toBeGreaterThan(0);
      const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
      await pg.pool.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
      await expect(client.query('select 1')).rejects.toThrow();
      client.release(true);
      await expect(sql`select 1 as one`.execute(database.db)).resolves.toMatchObject({ rows: [{ one: 1 }] });
    } finally {
      await database.close();
    }
  });
});
