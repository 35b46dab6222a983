// Postgres access for the apps that own a schema (control-plane, logger): a pg pool behind Kysely.
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { type Migrations, migrate } from './migrate.js';

export interface DatabaseOptions {
  readonly url: string;
  /** The app's own schema; it becomes the search_path of every connection. */
  readonly schema: string;
  readonly applicationName: string;
  readonly maxConnections?: number;
  readonly statementTimeoutMs?: number;
}

export interface Database<DB> {
  readonly db: Kysely<DB>;
  readonly pool: pg.Pool;
  /** Ready when a connection can be taken and answers `select 1`. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export function createDatabase<DB>(options: DatabaseOptions): Database<DB> {
  if (!SCHEMA_NAME.test(options.schema)) throw new Error(`invalid schema name: ${options.schema}`);
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? 10,
    application_name: options.applicationName,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    statement_timeout: options.statementTimeoutMs ?? 30_000,
    options: `-c search_path=${options.schema},public`,
  });
  // An idle client losing its server must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  // Nor may a checked-out one (pg-pool listens on idle clients only): its holder's next query fails
  // and the pool drops it on release.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  let closed: Promise<void> | undefined;
  return {
    db,
    pool,
    async ping() {
      await sql`select 1`.execute(db);
    },
    close() {
      closed ??= db.destroy();
      return closed;
    },
  };
}

export interface OpenDatabaseOptions extends DatabaseOptions {
  /** Applied before the database is handed out; omit to skip (a separate `migrate` job ran them). */
  readonly migrations?: Migrations;
  readonly onMigrated?: (applied: string[]) => void;
}

/** An app's database, migrated when asked; the pool is closed again if migrating fails. */
export async function openDatabase<DB>(options: OpenDatabaseOptions): Promise<Database<DB>> {
  const database = createDatabase<DB>(options);
  if (options.migrations) {
    try {
      const applied = await migrate(database.db, options.schema, options.migrations);
      options.onMigrated?.(applied);
    } catch (err) {
      await database.close();
      throw err;
    }
  }
  return database;
}
