// The logger process: JetStream streams and consumers (set up once NATS answers: it starts and
// serves without), Postgres schema `logs`, LogsService over gRPC.
import { openDatabase } from '@aigw/db';
import {
  type App,
  Closer,
  connectNatsInBackground,
  createHttpApp,
  createLogger,
  createMetrics,
  ensureStreams,
  type Logger,
  listen,
  natsConnected,
  startGrpcServer,
  streamsReadiness,
} from '@aigw/runtime';
import { type JetStreamManager, jetstreamManager } from '@nats-io/jetstream';
import { startBackground, startNatsIngest } from './background.js';
import type { LoggerConfig } from './config.js';
import { migrations } from './db/migrations/index.js';
import { type LogsDatabase, SCHEMA } from './db/schema.js';
import type { Ingest } from './ingest/ingest.js';
import { logsService } from './logs/logs.service.js';
import { loggerStreams } from './nats-names.js';
import { createExportRunner } from './query/exports/export-runner.js';

export interface LoggerApp extends App {
  readonly ports: { readonly http: number; readonly grpc: number };
}

export function createApp(config: LoggerConfig, options: { log?: Logger } = {}): LoggerApp {
  const log =
    options.log ?? createLogger({ app: 'logger', level: config.LOG_LEVEL, instanceId: config.INSTANCE_ID });
  const metrics = createMetrics('logger');
  const closer = new Closer(log);
  let ports: LoggerApp['ports'] | undefined;
  const named = loggerStreams(config.NATS_NAMESPACE);
  const streams = [named.requests, named.audit];

  return {
    get ports() {
      if (!ports) throw new Error('logger not started');
      return ports;
    },
    async start() {
      const database = await openDatabase<LogsDatabase>({
        url: config.DATABASE_URL,
        schema: SCHEMA,
        applicationName: 'logger',
        maxConnections: config.DATABASE_POOL_MAX,
        ...(config.MIGRATE_ON_START ? { migrations } : {}),
        onMigrated: (applied) => log.info({ applied }, 'migrations applied'),
      });
      closer.add('postgres', () => database.close());
      // Maintenance first: partitions exist before the first insert.
      await startBackground({ config, db: database.db, log, closer });
      // Log queries need Postgres only: NATS is connected (its streams ensured, the consumers
      // started) in the background, so that a replica (re)started during a NATS outage serves them;
      // events wait in JetStream or in the gateways' spools meanwhile.
      let jsm: JetStreamManager | undefined;
      let ingest: Ingest | undefined;
      const nats = connectNatsInBackground({
        url: config.NATS_URL,
        name: `logger@${config.INSTANCE_ID ?? process.pid}`,
        log,
        setUp: async ({ nc, onStop }) => {
          const manager = await jetstreamManager(nc);
          await ensureStreams(manager, streams, config.NATS_STREAM_REPLICAS);
          jsm = manager;
          if (!ingest) {
            const started = await startNatsIngest({
              config,
              db: database.db,
              nats: nc,
              jsm: manager,
              streams: named,
              registry: metrics.registry,
              log,
            });
            onStop('ingest', () => started.stop());
            ingest = started;
          }
        },
      });
      closer.add('nats', () => nats.stop());
      // With NATS up this is the start it always was (streams and consumers in place); without it,
      // one refused attempt.
      await nats.firstAttempt;

      const exports = createExportRunner({
        db: database.db,
        log,
        maxRows: config.EXPORT_MAX_ROWS,
        pollMs: config.EXPORT_POLL_MS,
      });
      if (config.DATA_EXPORTS_ENABLED) exports.start();
      closer.add('log exports', () => exports.stop());
      const logs = logsService({
        db: database.db,
        log,
        exportsEnabled: config.DATA_EXPORTS_ENABLED,
        exports,
        token: serviceTokenOf(config),
      });
      const grpc = await startGrpcServer([logs], config.GRPC_PORT, config.GRPC_HOST);
      closer.add('grpc', () => grpc.close(config.SHUTDOWN_TIMEOUT_MS));

      const app = createHttpApp({
        log,
        metrics,
        health: {
          // Log queries need Postgres only: a NATS outage (or a deleted stream) is reported under
          // `degraded` and `dependency_up`, never by pulling every replica out of the Service, which
          // would take log queries down with it while events wait in JetStream or the gateways' spools.
          checks: { postgres: () => database.ping() },
          degradable: {
            nats: nats.readiness,
            streams: async () => {
              const nc = nats.connection;
              if (!jsm || !nc) throw new Error('NATS not set up yet');
              // A stream lookup would wait out its timeout while NATS is known to be away.
              if (!natsConnected(nc)) throw new Error('NATS disconnected');
              await streamsReadiness(jsm, streams)();
            },
          },
          draining: () => closer.closed,
        },
      });
      const http = await listen(app, config.PORT, config.HOST);
      closer.add('http', () => http.close(config.SHUTDOWN_TIMEOUT_MS));
      ports = { http: http.port, grpc: grpc.port };
      log.info(
        { port: http.port, host: config.HOST, grpcPort: grpc.port, grpcHost: config.GRPC_HOST },
        'logger listening',
      );
    },
    async stop() {
      await closer.closeAll();
      log.info('logger stopped');
    },
  };
}

/** The settings refuse to load without the token; this keeps the type honest without a cast. */
function serviceTokenOf(config: LoggerConfig): string {
  if (config.LOGS_SERVICE_TOKEN === undefined) throw new Error('LOGS_SERVICE_TOKEN is required');
  return config.LOGS_SERVICE_TOKEN;
}
