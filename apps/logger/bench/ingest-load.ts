// Ingest benchmark: one logger process (bench/logger-process.ts) against Postgres and NATS, measured
// in two phases on a fresh stream and database:
//  1. backlog: BENCH_EVENTS request events (BENCH_EVENTS_PER_MESSAGE per batch message) are
//     published while the logger is frozen (SIGSTOP), then it is thawed and timed until the stream
//     is drained: sustained events/s;
//  2. paced: BENCH_RATE events/s for BENCH_PACED_SECONDS in messages of BENCH_PACED_EVENTS_PER_MESSAGE
//     (what a gateway's 25 ms linger makes of 1,600 requests/s): the lag behind the stream.
// BENCH_PROFILE_DIR=<dir> writes the logger's V8 CPU profile there.
// Each phase reports the CPU per event of the logger process and of the whole Postgres server (every
// backend and auxiliary process, /proc/<pid>/stat), and checks that every event is stored once.
// Postgres and NATS: DATABASE_URL / NATS_URL, else local binaries (testkit; Postgres without fsync).
// A remote DATABASE_URL cannot be read from /proc: the Postgres figures are then null.
import { randomBytes } from 'node:crypto';
import { createLogger } from '@aigw/runtime';
import { resolveServices } from '@aigw/testkit/services';
import { type JetStreamManager, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import pg from 'pg';
import { createApp } from '../src/app.js';
import { loadLoggerConfig } from '../src/config.js';
import { CONSUMER_NAMES } from '../src/ingest/ingest.js';
import { loggerStreams } from '../src/nats-names.js';
import { batchBytes, batchId, DEFAULT_SHAPE, requestEvent } from '../src/testing/request-events.js';
import { startLoggerProcess } from './logger-process.js';
import { postmasterOf, processCpuUs, serverCpuUs } from './proc-cpu.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000);
const PER_MESSAGE = Number(process.env.BENCH_EVENTS_PER_MESSAGE ?? 100);
const RATE = Number(process.env.BENCH_RATE ?? 1_600);
const PACED_SECONDS = Number(process.env.BENCH_PACED_SECONDS ?? 15);
const PACED_PER_MESSAGE = Number(process.env.BENCH_PACED_EVENTS_PER_MESSAGE ?? 40);
const BATCH_MESSAGES = process.env.BENCH_BATCH_MESSAGES ?? '32';
const IN_FLIGHT = process.env.BENCH_IN_FLIGHT ?? '2';
const NAMESPACE = `BENCH_${process.pid}`;
/** A directory: the logger process writes a V8 CPU profile there (`--cpu-prof`), for diagnosis. */
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR;

/** A fresh database on the server (the vitest-bound testkit index is not for scripts). */
async function createDatabase(serverUrl: string, name: string) {
  const admin = new pg.Pool({ connectionString: serverUrl, max: 1 });
  admin.on('error', () => undefined); // the server stops at the end
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

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const round = (n: number, digits = 1) => Number(n.toFixed(digits));

/** Messages of the stream not yet acknowledged by the logger (undelivered or being stored). */
async function unacked(jsm: JetStreamManager, stream: string): Promise<number> {
  const info = await jsm.consumers.info(stream, CONSUMER_NAMES.requests);
  return info.num_pending + info.num_ack_pending;
}

const log = createLogger({ app: 'logger-bench', level: 'info' });
const services = await resolveServices(['postgres', 'nats'], { log: (line) => log.info(line) });
const database = await createDatabase(services.postgres?.url ?? '', `bench_${process.pid}`);
const natsUrl = services.nats?.url ?? '';
const nc = await connect({ servers: natsUrl });
const jsm = await jetstreamManager(nc);
const js = jetstream(nc);
const streams = loggerStreams(NAMESPACE);
const subject = streams.requests.subjects[0] ?? '';
const env = {
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
  // The bench's own tasks stay out of the measurement.
  MAINTENANCE_INTERVAL_MS: '0',
  USAGE_RECONCILE_INTERVAL_MS: '0',
};
const check = new pg.Pool({ connectionString: database.url, max: 1 });
check.on('error', () => undefined); // the final drop ends its connection

const storedRows = async () =>
  Number((await check.query<{ n: string }>('select count(*) as n from logs.request_logs')).rows[0]?.n);
const distinctIds = async () =>
  Number(
    (await check.query<{ n: string }>('select count(distinct id) as n from logs.request_logs')).rows[0]?.n,
  );

let next = 0;
/** Publishes the next `count` events in messages of `perMessage`, at most 64 publishes awaited at once. */
async function publish(count: number, perMessage: number, shape: typeof DEFAULT_SHAPE): Promise<void> {
  let pending: Promise<unknown>[] = [];
  for (let done = 0; done < count; done += perMessage) {
    const events = Array.from({ length: Math.min(perMessage, count - done) }, () =>
      requestEvent(next++, shape),
    );
    pending.push(js.publish(subject, batchBytes(events), { msgID: batchId(events) }));
    if (pending.length >= 64) {
      await Promise.all(pending);
      pending = [];
    }
  }
  await Promise.all(pending);
}

try {
  // First start: migrations, partitions, streams and consumers (not measured).
  const setup = createApp(loadLoggerConfig(env));
  await setup.start();
  await setup.stop();
  const backend = (await check.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid ?? 0;
  const postmaster = postmasterOf(backend);
  const postgresCpu = () => (postmaster === undefined ? undefined : serverCpuUs(postmaster));

  const logger = await startLoggerProcess(
    env,
    PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [],
  );
  const cpu = () => ({ logger: processCpuUs(logger.pid) ?? 0, postgres: postgresCpu() });
  const perEvent = (from: ReturnType<typeof cpu>, to: ReturnType<typeof cpu>, events: number) => {
    const loggerUs = (to.logger - from.logger) / events;
    const postgresUs =
      from.postgres === undefined || to.postgres === undefined
        ? null
        : (to.postgres - from.postgres) / events;
    return {
      loggerCpuUsPerEvent: round(loggerUs),
      postgresCpuUsPerEvent: postgresUs === null ? null : round(postgresUs),
      totalCpuUsPerEvent: postgresUs === null ? null : round(loggerUs + postgresUs),
    };
  };
  const startMs = Date.now() - 3_600_000;
  try {
    await sleep(1_000); // the start's own work settles

    // Phase 1: backlog.
    logger.freeze();
    const publishStart = performance.now();
    await publish(EVENTS, PER_MESSAGE, {
      ...DEFAULT_SHAPE,
      startMs,
      stepMs: Math.max(1, Math.floor(1_800_000 / EVENTS)),
    });
    const publishSeconds = (performance.now() - publishStart) / 1000;
    const backlogFrom = cpu();
    const drainStart = performance.now();
    logger.thaw();
    while ((await unacked(jsm, streams.requests.name)) > 0) await sleep(100);
    const drainSeconds = (performance.now() - drainStart) / 1000;
    const backlogTo = cpu();
    const backlogStored = await storedRows();
    if (backlogStored !== EVENTS)
      throw new Error(`backlog: stored ${backlogStored} rows for ${EVENTS} events`);
    const backlog = {
      events: EVENTS,
      eventsPerMessage: PER_MESSAGE,
      publishSeconds: round(publishSeconds, 2),
      drainSeconds: round(drainSeconds, 2),
      eventsPerSecond: Math.round(EVENTS / drainSeconds),
      ...perEvent(backlogFrom, backlogTo, EVENTS),
    };
    log.info(backlog, 'backlog phase');

    // Phase 2: paced, RATE events/s; lag sampled every 100 ms.
    const pacedEvents = Math.round(RATE * PACED_SECONDS);
    const messages = Math.ceil(pacedEvents / PACED_PER_MESSAGE);
    const pacedFrom = cpu();
    const pacedStart = performance.now();
    const lags: number[] = [];
    let publishing = true;
    const sampler = (async () => {
      while (publishing) {
        lags.push(await unacked(jsm, streams.requests.name).catch(() => 0));
        await sleep(100);
      }
    })();
    const shape = {
      ...DEFAULT_SHAPE,
      startMs: startMs + 1_800_000,
      stepMs: Math.max(1, Math.floor(1_800_000 / pacedEvents)),
    };
    for (let m = 0; m < messages; m++) {
      const due = pacedStart + (m * 1000 * PACED_PER_MESSAGE) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      await publish(
        Math.min(PACED_PER_MESSAGE, pacedEvents - m * PACED_PER_MESSAGE),
        PACED_PER_MESSAGE,
        shape,
      );
    }
    const lastPublish = performance.now();
    publishing = false;
    await sampler;
    while ((await unacked(jsm, streams.requests.name)) > 0) await sleep(20);
    const tailSeconds = (performance.now() - lastPublish) / 1000;
    const pacedTo = cpu();
    const stored = await storedRows();
    if (stored !== EVENTS + pacedEvents)
      throw new Error(`paced: stored ${stored - EVENTS} rows for ${pacedEvents} events`);
    if ((await distinctIds()) !== stored) throw new Error('an event was stored twice');
    lags.sort((a, b) => a - b);
    const at = (p: number) => lags[Math.min(lags.length - 1, Math.ceil(p * lags.length) - 1)] ?? 0;
    const paced = {
      events: pacedEvents,
      eventsPerSecond: RATE,
      eventsPerMessage: PACED_PER_MESSAGE,
      achievedEventsPerSecond: Math.round(pacedEvents / ((lastPublish - pacedStart) / 1000)),
      lagMessagesP50: at(0.5),
      lagMessagesMax: at(1),
      lagEventsMax: at(1) * PACED_PER_MESSAGE,
      drainAfterLastPublishMs: Math.round(tailSeconds * 1000),
      ...perEvent(pacedFrom, pacedTo, pacedEvents),
    };
    log.info(paced, 'paced phase');
    const result = { batchMessages: Number(BATCH_MESSAGES), inFlight: Number(IN_FLIGHT), backlog, paced };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await logger.stop();
  }
} catch (err) {
  log.error({ err }, 'bench failed');
  process.exitCode = 1;
} finally {
  await check.end();
  for (const stream of Object.values(streams)) await jsm.streams.delete(stream.name).catch(() => undefined);
  await nc.drain();
  await database.drop();
  await services.stopAll();
}
