import pgModule from 'pg';
import { expect } from 'vitest';
import { test, testkitContext } from './fixtures.js';
import { createTestDatabase } from './pg-database.js';

const { Pool } = pgModule;

test('the fixture database is a fresh t_<random> database', async ({ pg }) => {
  expect(pg.database).toMatch(/^t_[0-9a-f]{10}$/);
  const { rows } = await pg.pool.query<{ name: string; tables: string }>(
    `select current_database() as name,
            (select count(*) from pg_tables where schemaname = 'public')::text as tables`,
  );
  expect(rows).toEqual([{ name: pg.database, tables: '0' }]);
  expect(new URL(pg.url).pathname).toBe(`/${pg.database}`);
});

test('rows round-trip through a table', async ({ pg }) => {
  await pg.pool.query('create table items (id int primary key, name text not null, tags jsonb)');
  await pg.pool.query('insert into items values ($1, $2, $3), ($4, $5, $6)', [
    1,
    'alpha',
    JSON.stringify(['x']),
    2,
    'beta',
    null,
  ]);
  const { rows } = await pg.pool.query('select id, name, tags from items order by id');
  expect(rows).toEqual([
    { id: 1, name: 'alpha', tags: ['x'] },
    { id: 2, name: 'beta', tags: null },
  ]);
});

test('the database is shared by the tests of one file', async ({ pg }) => {
  const { rows } = await pg.pool.query('select count(*)::int as n from items');
  expect(rows[0]).toEqual({ n: 2 });
});

test('createTestDatabase makes a separate database and drop removes it', async ({ pg }) => {
  const other = await createTestDatabase(testkitContext().databaseUrl);
  expect(other.database).not.toBe(pg.database);
  const otherPool = new Pool({ connectionString: other.url });
  try {
    await otherPool.query('create table only_in_other (id int)');
    const inOther = await otherPool.query(
      "select to_regclass('items') as items, to_regclass('only_in_other') as own",
    );
    expect(inOther.rows[0]).toEqual({ items: null, own: 'only_in_other' });
    const inMine = await pg.pool.query("select to_regclass('only_in_other') as other");
    expect(inMine.rows[0]).toEqual({ other: null });
  } finally {
    await otherPool.end();
  }
  await other.drop();
  const { rows } = await pg.pool.query('select count(*)::int as n from pg_database where datname = $1', [
    other.database,
  ]);
  expect(rows[0]).toEqual({ n: 0 });
});
