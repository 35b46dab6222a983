// The secret refresher as the tests drive it: a worker of its own on the test database (closed when
// the test finishes), swept by hand with the times a test gives it.
import { openDatabase } from '@aigw/db';
import { createLogger } from '@aigw/runtime';
import { parseMasterKey } from '@aigw/secret-box';
import { onTestFinished } from 'vitest';
import { MASTER_KEY } from '../../test/harness.js';
import { type ControlDatabase, SCHEMA } from '../db/schema.js';
import { createSecretRefreshWorker, type SecretRefreshWorker } from './secret-refresh.worker.js';

export async function testRefreshWorker(
  databaseUrl: string,
  applicationName: string,
): Promise<SecretRefreshWorker> {
  const database = await openDatabase<ControlDatabase>({ url: databaseUrl, schema: SCHEMA, applicationName });
  onTestFinished(() => database.close());
  return createSecretRefreshWorker({
    db: database.db,
    log: createLogger({ app: 'test', level: 'silent' }),
    intervalMs: 60_000,
    auditEnabled: true,
    masterKey: parseMasterKey(MASTER_KEY),
    env: new Map(),
    timeoutMs: 2000,
  });
}
