// The control-plane process: admin REST API on PORT, SnapshotService over gRPC, Postgres, NATS.
import { openDatabase } from '@aigw/db';
import {
  type App,
  Closer,
  connectNats,
  createHttpApp,
  createLogger,
  createMetrics,
  type GrpcService,
  type Logger,
  listen,
  natsReadiness,
  startGrpcServer,
} from '@aigw/runtime';
import type { ControlPlaneConfig } from './config.js';
import { migrations } from './db/migrations/index.js';
import { type ControlDatabase, SCHEMA } from './db/schema.js';
import { SnapshotRepository } from './snapshot/snapshot.repository.js';
import { snapshotService } from './snapshot/snapshot.service.js';

export interface ControlPlaneApp extends App {
  readonly ports: { readonly http: number; readonly grpc: number };
}

export function createApp(config: ControlPlaneConfig, options: { log?: Logger } = {}): ControlPlaneApp {
  const log =
    options.log ??
    createLogger({ app: 'control-plane', level: config.LOG_LEVEL, instanceId: config.INSTANCE_ID });
  const metrics = createMetrics('control-plane');
  const closer = new Closer(log);
  let ports: ControlPlaneApp['ports'] | undefined;

  return {
    get ports() {
      if (!ports) throw new Error('control plane not started');
      return ports;
    },
    async start() {
      const database = await openDatabase<ControlDatabase>({
        url: config.DATABASE_URL,
        schema: SCHEMA,
        applicationName: 'control-plane',
        maxConnections: config.DATABASE_POOL_MAX,
        ...(config.MIGRATE_ON_START ? { migrations } : {}),
        onMigrated: (applied) => log.info({ applied }, 'migrations applied'),
      });
      closer.add('postgres', () => database.close());
      const nats = await connectNats({
        url: config.NATS_URL,
        name: `control-plane@${config.INSTANCE_ID ?? process.pid}`,
        log,
      });
      closer.add('nats', () => nats.drain());

      const services: GrpcService[] = [
        snapshotService({ repository: new SnapshotRepository(database.db), log }),
      ];
      const grpc = await startGrpcServer(services, config.GRPC_PORT, config.HOST);
      closer.add('grpc', () => grpc.close(config.SHUTDOWN_TIMEOUT_MS));

      const app = createHttpApp({
        log,
        metrics,
        accessLog: true,
        health: {
          checks: { postgres: () => database.ping(), nats: natsReadiness(nats) },
          draining: () => closer.closed,
        },
      });
      const http = await listen(app, config.PORT, config.HOST);
      closer.add('http', () => http.close(config.SHUTDOWN_TIMEOUT_MS));
      ports = { http: http.port, grpc: grpc.port };
      log.info({ port: http.port, grpcPort: grpc.port, host: config.HOST }, 'control plane listening');
    },
    async stop() {
      await closer.closeAll();
      log.info('control plane stopped');
    },
  };
}
