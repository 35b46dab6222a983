// `migrate` command: apply pending migrations and exit (for a pre-rollout job).
import { createDatabase, migrate } from '@aigw/db';
import { ConfigError } from '@aigw/runtime';
import { type ControlPlaneConfig, loadControlPlaneConfig } from './config.js';
import { migrations } from './db/migrations/index.js';
import { SCHEMA } from './db/schema.js';

let config: ControlPlaneConfig;
try {
  config = loadControlPlaneConfig();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`control-plane migrate: cannot start, ${err.message}\n`);
  process.exit(1);
}
const database = createDatabase({
  url: config.DATABASE_URL,
  schema: SCHEMA,
  applicationName: 'control-plane-migrate',
});
try {
  const applied = await migrate(database.db, SCHEMA, migrations);
  process.stdout.write(
    `applied ${applied.length} migration(s)${applied.length ? `: ${applied.join(', ')}` : ''}\n`,
  );
} finally {
  await database.close();
}
