// A second file using the pg fixture: it runs alongside pg-database.int.test.ts (one fork per file)
// and must get a database of its own.
import pgModule from 'pg';
import { expect } from 'vitest';
import { test, testkitContext } from './fixtures.js';

test('another file gets another database', async ({ pg }) => {
  // pg-database.int.test.ts creates `items` and inserts two rows. Creating the same table without
  // IF NOT EXISTS would fail in a shared database, and it would not start out empty.
  await pg.pool.query('create table items (id int primary key, name text not null, tags jsonb)');
  await pg.pool.query("insert into items values (10, 'isolated', null)");
  const { rows } = await pg.pool.query('select id from items order by id');
  expect(rows).toEqual([{ id: 10 }]);
  const tables = await pg.pool.query("select tablename from pg_tables where schemaname = 'public'");
  expect(tables.rows).toEqual([{ tablename: 'items' }]);
});

test('the server database the URL points at is left untouched', async ({ pg }) => {
  const server = new pgModule.Pool({ connectionString: testkitContext().databaseUrl });
  try {
    const { rows } = await server.query("select current_database() as name, to_regclass('items') as items");
    expect(rows[0].name).not.toBe(pg.database);
    expect(rows[0].items).toBeNull();
  } finally {
    await server.end();
  }
});
