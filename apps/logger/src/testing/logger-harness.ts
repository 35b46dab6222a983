// Integration-test helpers: a logger app on the test's Postgres and NATS namespace, and polling.
import type { NatsFixture, PgFixture } from '@aigw/testkit';
import { createApp, type LoggerApp } from '../app.js';
import { loadLoggerConfig } from '../config.js';
import { loggerStreams } from '../nats-names.js';

/** The LogsService token of test loggers (LOGS_SERVICE_TOKEN). */
export const LOGS_TOKEN = `logs_test_token_${'l'.repeat(32)}`;

export function testLogger(pg: PgFixture, nats: NatsFixture, env: Record<string, string> = {}): LoggerApp {
  return createApp(
    loadLoggerConfig({
      PORT: '0',
      GRPC_PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      LOGS_SERVICE_TOKEN: LOGS_TOKEN,
      DATABASE_URL: pg.url,
      NATS_URL: nats.url,
      NATS_NAMESPACE: nats.prefix,
      INGEST_ACK_WAIT_MS: '2000',
      INGEST_FETCH_EXPIRES_MS: '1000',
      ...env,
    }),
  );
}

export function testStreams(nats: NatsFixture) {
  return loggerStreams(nats.prefix);
}

/** Polls `check` until it returns a value that `done` accepts; throws with the last value after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await check();
  while (!done(value)) {
    if (Date.now() > deadline)
      throw new Error(`condition not met in ${timeoutMs} ms; last value ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await check();
  }
  return value;
}

export async function count(pg: PgFixture, query: string, params: unknown[] = []): Promise<number> {
  const { rows } = await pg.pool.query<{ n: string }>(query, params);
  return Number(rows[0]?.n ?? 0);
}
