import { test } from '@aigw/testkit';
import { type Kysely, sql } from 'kysely';
import { describe, expect } from 'vitest';
import { createDatabase } from './database.js';
import { MigrationError, type Migrations, migrate } from './migrate.js';

const migrations: Migrations = {
  '0001-widgets': {
    up: async (db: Kysely<unknown>) => {
      await db.schema
        .createTable('widgets')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .execute();
    },
  },
  '0002-widget-names': {
    up: async (db: Kysely<unknown>) => {
      await db.schema.alterTable('widgets').addColumn('name', 'text').execute();
    },
  },
};

describe('migrate', () => {
  test('applies pending migrations once, even with several replicas racing', async ({ pg }) => {
    const replicas = Array.from({ length: 4 }, () =>
      createDatabase({ url: pg.url, schema: 'race', applicationName: 'test' }),
    );
    try {
      const applied = await Promise.all(replicas.map((r) => migrate(r.db, 'race', migrations)));
      expect(applied.flat().sort()).toEqual(['0001-widgets', '0002-widget-names']);
      const again = await migrate(replicas[0]!.db, 'race', migrations);
      expect(again).toEqual([]);
      await sql`insert into widgets (id, name) values (1, 'one')`.execute(replicas[0]!.db);
      const rows = await pg.pool.query('select id, name from race.widgets');
      expect(rows.rows).toEqual([{ id: 1, name: 'one' }]);
    } finally {
      await Promise.all(replicas.map((r) => r.close()));
    }
  });

  test('a failing migration rolls back and names itself', async ({ pg }) => {
    const database = createDatabase({ url: pg.url, schema: 'broken', applicationName: 'test' });
    try {
      const failing: Migrations = {
        ...migrations,
        '0003-bad': {
          up: async (db: Kysely<unknown>) => {
            await db.schema.alterTable('widgets').addColumn('size', 'integer').execute();
            await sql`select * from no_such_table`.execute(db);
          },
        },
      };
      const error = await migrate(database.db, 'broken', failing).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(MigrationError);
      expect((error as Error).message).toMatch(/^migration 0003-bad failed: .*no_such_table/);
      // Kysely runs the whole batch in one transaction: nothing of it is left behind.
      const tables = await pg.pool.query(
        "select 1 from information_schema.tables where table_schema = 'broken' and table_name = 'widgets'",
      );
      expect(tables.rowCount).toBe(0);
    } finally {
      await database.close();
    }
  });

  test('ping answers, and a bad schema name is refused before any SQL', async ({ pg }) => {
    const database = createDatabase({ url: pg.url, schema: 'control', applicationName: 'test' });
    await expect(database.ping()).resolves.toBeUndefined();
    await database.close();
    expect(() => createDatabase({ url: pg.url, schema: 'x; drop table y', applicationName: 'test' })).toThrow(
      /invalid schema name/,
    );
  });
});
