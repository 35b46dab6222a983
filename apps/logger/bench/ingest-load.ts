// Ingest benchmark: publishes BENCH_EVENTS request events (BENCH_EVENTS_PER_MESSAGE per batch message,
// as the gateway does under load) to a fresh stream, then starts the logger and times how long it
// takes to store the whole backlog in Postgres: the sustained events/s of one logger process.
// Postgres and NATS: DATABASE_URL / NATS_URL, else local binaries (testkit; Postgres without fsync).
import { randomBytes } from 'node:crypto';
import { createLogger } from '@aigw/runtime';
import { resolveServices } from '@aigw/testkit/services';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import pg from 'pg';
import { createApp } from '../src/app.js';
import { loadLoggerConfig } from '../src/config.js';
import { CONSUMER_NAMES } from '../src/ingest/ingest.js';
import { loggerStreams } from '../src/nats-names.js';
import { batchBytes, batchId, DEFAULT_SHAPE, requestEvent } from '../src/testing/request-events.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 200_000);
const PER_MESSAGE = Number(process.env.BENCH_EVENTS_PER_MESSAGE ?? 100);
const BATCH_MESSAGES = process.env.BENCH_BATCH_MESSAGES ?? '32';
const IN_FLIGHT = process.env.BENCH_IN_FLIGHT ?? '2';
const NAMESPACE = `BENCH_${process.pid}`;

/** A fresh database on the server (the vitest-bound testkit index is not for scripts). */
async function createDatabase(serverUrl: string, name: string) {
  const admin = new pg.Pool({ connectionString: serverUrl, max: 1 });
  await admin.query(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

const log = createLogger({ app: 'logger-bench', level: 'info' });
const services = await resolveServices(['postgres', 'nats'], { log: (line) => log.info(line) });
const database = await createDatabase(services.postgres?.url ?? '', `bench_${process.pid}`);
const natsUrl = services.nats?.url ?? '';
const nc = await connect({ servers: natsUrl });
const jsm = await jetstreamManager(nc);
const streams = loggerStreams(NAMESPACE);

const config = loadLoggerConfig({
  DATABASE_URL: database.url,
  NATS_URL: natsUrl,
  NATS_NAMESPACE: NAMESPACE,
  PORT: '0',
  GRPC_PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  LOGS_SERVICE_TOKEN: randomBytes(32).toString('base64'),
  INGEST_BATCH_MESSAGES: BATCH_MESSAGES,
  INGEST_MAX_IN_FLIGHT: IN_FLIGHT,
});

try {
  // First start: migrations, partitions, streams and consumers; then stop so the backlog builds up.
  const setup = createApp(config);
  await setup.start();
  await setup.stop();

  const js = jetstream(nc);
  const shape = { ...DEFAULT_SHAPE, startMs: Date.now() - 3_600_000, stepMs: 3_600_000 / EVENTS };
  const publishStart = performance.now();
  let pending: Promise<unknown>[] = [];
  for (let at = 0; at < EVENTS; at += PER_MESSAGE) {
    const events = Array.from({ length: Math.min(PER_MESSAGE, EVENTS - at) }, (_, i) =>
      requestEvent(at + i, shape),
    );
    pending.push(
      js.publish(streams.requests.subjects[0] ?? '', batchBytes(events), { msgID: batchId(events) }),
    );
    if (pending.length >= 64) {
      await Promise.all(pending);
      pending = [];
    }
  }
  await Promise.all(pending);
  log.info({ events: EVENTS, seconds: (performance.now() - publishStart) / 1000 }, 'backlog published');

  const check = new pg.Pool({ connectionString: database.url, max: 1 });
  check.on('error', () => undefined); // the final drop ends its connection
  const storedRows = async () =>
    Number((await check.query<{ n: string }>('select count(*) as n from logs.request_logs')).rows[0]?.n);
  const app = createApp(config);
  await app.start();
  // Timed from the end of start (migrations, partitions, streams are not ingest).
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  const before = await storedRows();
  for (;;) {
    const info = await jsm.consumers.info(streams.requests.name, CONSUMER_NAMES.requests);
    if (info.num_pending + info.num_ack_pending === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  await app.stop();

  const stored = await storedRows();
  await check.end();
  const timed = EVENTS - before;
  if (stored !== EVENTS) throw new Error(`stored ${stored} rows for ${EVENTS} events`);
  const result = {
    events: EVENTS,
    eventsPerMessage: PER_MESSAGE,
    batchMessages: Number(BATCH_MESSAGES),
    inFlight: Number(IN_FLIGHT),
    seconds: Number(seconds.toFixed(2)),
    eventsPerSecond: Math.round(timed / seconds),
    loggerCpuMsPer1000Events: Number((((cpu.user + cpu.system) / 1000 / timed) * 1000).toFixed(1)),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
} catch (err) {
  log.error({ err }, 'bench failed');
  process.exitCode = 1;
} finally {
  for (const stream of Object.values(streams)) await jsm.streams.delete(stream.name).catch(() => undefined);
  await nc.drain();
  await database.drop();
  await services.stopAll();
}
