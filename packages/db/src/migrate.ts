// Forward-only migrations compiled into the app (no file globbing: same behaviour from src and dist).
import { type Kysely, type Migration, type MigrationResultSet, Migrator, sql } from 'kysely';

export type Migrations = Readonly<Record<string, Migration>>;

export class MigrationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MigrationError';
  }
}

/**
 * Applies pending migrations to `schema`. Safe when several replicas start at once: Kysely's
 * Postgres adapter takes a transaction-scoped advisory lock around the run, so one applies and
 * the others find nothing left to do. Returns the names applied by this call.
 */
export async function migrate<DB>(db: Kysely<DB>, schema: string, migrations: Migrations): Promise<string[]> {
  await createSchema(db, schema);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => ({ ...migrations }) },
    migrationTableSchema: schema,
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
  });
  const result: MigrationResultSet = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new MigrationError(`migration ${failed} failed: ${String(result.error)}`, { cause: result.error });
  }
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

async function createSchema<DB>(db: Kysely<DB>, schema: string): Promise<void> {
  try {
    await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
  } catch (err) {
    // Two replicas racing on "if not exists" can both pass the check; the loser sees a
    // unique violation on the catalog, which means the schema now exists.
    if ((err as { code?: string }).code !== '23505') throw err;
  }
}
