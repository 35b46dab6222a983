// Public surface of `@aigw/testkit`: vitest fixtures and the helpers they are built from.

export { dependencyUp, waitForDependency } from './dependency-up.js';
export {
  type NatsFixture,
  type PgFixture,
  type RedisFixture,
  type TestkitFixtures,
  test,
  testkitContext,
} from './fixtures.js';
export { createTestNats, deleteStreamsWithPrefix, type TestNats } from './nats-namespace.js';
export { createTestDatabase, type TestDatabase } from './pg-database.js';
export type { TestkitContext } from './provided-context.js';
export { createTestRedis, deleteKeysWithPrefix, type TestRedis } from './redis-namespace.js';
export { expectStopsWithoutNats, type StartableApp } from './stops-without-nats.js';
export { waitFor } from './wait-for.js';
export { waitReady } from './wait-ready.js';
