// Vitest fixtures: each test file gets its own database, Redis key prefix and NATS stream prefix
// on the servers the global setup started, so files can run in parallel without seeing each other.
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Redis } from 'ioredis';
import pg from 'pg';
import { test as base, inject } from 'vitest';
import { createTestNats } from './nats-namespace.js';
import { createTestDatabase } from './pg-database.js';
import type { TestkitContext } from './provided-context.js';
import { createTestRedis } from './redis-namespace.js';

export interface PgFixture {
  readonly url: string;
  readonly database: string;
  readonly pool: pg.Pool;
}

export interface RedisFixture {
  readonly url: string;
  readonly prefix: string;
  readonly client: Redis;
}

export interface NatsFixture {
  readonly url: string;
  readonly prefix: string;
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  stream(name: string): string;
  subject(...tokens: string[]): string;
}

export interface TestkitFixtures {
  pg: PgFixture;
  redis: RedisFixture;
  nats: NatsFixture;
}

/** URLs of this run's shared servers; throws when the package did not opt into the global setup. */
export function testkitContext(): TestkitContext {
  const context = inject('testkit');
  if (!context) {
    throw new Error(
      'testkit: no services were provided. Use `sharedConfig({ services: true })` in vitest.config.ts ' +
        '(it adds packages/testkit/src/global-setup.ts as globalSetup).',
    );
  }
  return context;
}

export const test = base.extend<TestkitFixtures>({
  pg: [
    // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern
    async ({}, use) => {
      const db = await createTestDatabase(testkitContext().databaseUrl);
      const pool = new pg.Pool({ connectionString: db.url, max: 10 });
      // Dropping the database at teardown terminates any connection a test left open (57P01);
      // that is the expected end of such a connection, not a failure of the file.
      pool.on('error', (err: Error & { code?: string }) => {
        if (err.code !== '57P01') console.error('[testkit] pg pool error', err);
      });
      try {
        await use({ url: db.url, database: db.database, pool });
      } finally {
        await pool.end();
        await db.drop();
      }
    },
    { scope: 'file' },
  ],
  redis: [
    // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern
    async ({}, use) => {
      const redis = await createTestRedis(testkitContext().redisUrl);
      try {
        await use({ url: redis.url, prefix: redis.prefix, client: redis.client });
      } finally {
        await redis.cleanup();
      }
    },
    { scope: 'file' },
  ],
  nats: [
    // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern
    async ({}, use) => {
      const nats = await createTestNats(testkitContext().natsUrl);
      try {
        const { cleanup: _, ...fixture } = nats;
        await use(fixture);
      } finally {
        await nats.cleanup();
      }
    },
    { scope: 'file' },
  ],
});
