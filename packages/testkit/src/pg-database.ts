// A fresh database per test file on a shared Postgres server, dropped afterwards.
import pg from 'pg';
import { randomId } from './random-id.js';

export interface TestDatabase {
  /** Connection URL of the new database (the server URL with the database swapped). */
  readonly url: string;
  readonly database: string;
  /** Drops the database, terminating any session still connected to it. */
  drop(): Promise<void>;
}

/** Creates `t_<random>` on the server that `serverUrl` points at (any database on it will do). */
export async function createTestDatabase(serverUrl: string): Promise<TestDatabase> {
  const database = `t_${randomId()}`;
  await adminQuery(serverUrl, `CREATE DATABASE ${quoteIdent(database)}`);
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  let dropped: Promise<void> | undefined;
  return {
    url: url.toString(),
    database,
    drop: () => {
      dropped ??= adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${quoteIdent(database)} WITH (FORCE)`);
      return dropped;
    },
  };
}

async function adminQuery(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
