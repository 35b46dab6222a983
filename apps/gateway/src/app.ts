// The gateway process: the `/v1` data plane on PORT, Redis for counters, NATS for request events.
import { mkdtempSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type App,
  Closer,
  connectNatsInBackground,
  createHttpApp,
  createLogger,
  createMetrics,
  type Logger,
  listen,
  type ReadinessCheck,
} from '@aigw/runtime';
import { telemetryEnabled } from '@aigw/telemetry';
import type { NatsConnection } from '@nats-io/nats-core';
import { Redis } from 'ioredis';
import { accessFromConfig } from './access/index.js';
import type { GatewayConfig } from './config.js';
import { createEventPublisher, type EventPublisher, publishWithTraceParent } from './events/index.js';
import { audioDurationMetrics } from './formats/audio-duration.js';
import { natsAlertPublisher } from './limits/alert-publisher.js';
import { createLimits } from './limits/index.js';
import { createGatewayPipeline, dataPlaneMetrics } from './pipeline/index.js';
import { createSnapshotClient, SnapshotStore, SnapshotSync } from './snapshot/index.js';

export interface GatewayApp extends App {
  /** The bound HTTP port (useful with PORT=0 in tests). */
  readonly port: number;
  /** Request events: exposed so tests and shutdown can flush them. */
  readonly events: EventPublisher;
  /** Control-plane entities (keys, providers, configs, policies); undefined in standalone mode. */
  readonly snapshots: SnapshotStore | undefined;
}

function spoolDir(config: GatewayConfig): string {
  if (config.EVENT_SPOOL_DIR) return config.EVENT_SPOOL_DIR;
  // PORT=0 (tests, tools) gets a private directory: two such gateways must not share a spool.
  if (config.PORT === 0) return mkdtempSync(join(tmpdir(), 'aigw-gateway-events-'));
  return join(tmpdir(), `aigw-gateway-events-${config.PORT}`);
}

export function createApp(config: GatewayConfig, options: { log?: Logger } = {}): GatewayApp {
  const log =
    options.log ?? createLogger({ app: 'gateway', level: config.LOG_LEVEL, instanceId: config.INSTANCE_ID });
  const instanceId = config.INSTANCE_ID ?? `gateway-${process.pid}`;
  const metrics = createMetrics('gateway');
  const closer = new Closer(log);
  /** What this replica cannot serve without (the snapshot, in control-plane mode). */
  const checks: Record<string, ReadinessCheck> = {};
  /** What it serves without, degraded (limits decided locally, events spooled): reported, not gating. */
  const degradable: Record<string, ReadinessCheck> = {};
  let port: number | undefined;
  let events: EventPublisher | undefined;
  let redis: Redis | undefined;
  const snapshots = config.CONTROL_PLANE_GRPC_URL ? new SnapshotStore() : undefined;

  // Redis and NATS may be down when the gateway starts or later: it serves anyway (limits degrade,
  // events spool), stays ready, reports them under /readyz `degraded` and `dependency_up`, and keeps
  // reconnecting in the background.
  function connectRedis(url: string): Redis {
    // Auto-pipelining sends the commands of one event-loop turn in one write (the response cache's,
    // for one). The limits batch their own script calls per organisation (limits/redis-store.ts).
    const client = new Redis(url, {
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      enableAutoPipelining: true,
    });
    client.on('error', (err: Error) => log.warn({ err: err.message }, 'redis error'));
    closer.add('redis', () => client.disconnect());
    degradable.redis = async () => {
      await client.ping();
    };
    return client;
  }

  /**
   * NATS connected in the background, as the control plane and the logger connect it
   * (connectNatsInBackground): nothing to set up here; the event publisher, the change feed and the
   * alert publisher take the connection once NATS first answers. Stopped before that, they never do.
   */
  function connectEvents(url: string): Promise<NatsConnection> {
    const background = connectNatsInBackground({ url, name: instanceId, log, setUp: async () => {} });
    closer.add('nats', () => background.stop());
    degradable.nats = background.readiness;
    return background.ready.then((up) =>
      up && background.connection ? background.connection : new Promise<NatsConnection>(() => {}),
    );
  }

  // Not ready until a snapshot (or the last-known-good file) is loaded; then it serves whatever it
  // holds, however old, while the control plane or NATS is away.
  function syncSnapshot(
    address: string,
    store: SnapshotStore,
    nc: Promise<NatsConnection> | undefined,
    spool: string,
  ): void {
    if (!nc) log.warn('NATS_URL is not set: control-plane changes arrive only through anti-entropy checks');
    const sync = new SnapshotSync({
      store,
      client: createSnapshotClient({
        address,
        token: config.SNAPSHOT_SERVICE_TOKEN,
        deadlineMs: config.SNAPSHOT_GRPC_DEADLINE_MS,
        clientId: `gateway@${instanceId}`,
      }),
      log,
      registry: metrics.registry,
      namespace: config.NATS_NAMESPACE,
      lkgPath: config.SNAPSHOT_LKG_PATH ?? join(spool, 'snapshot-v1.lkg'),
      antiEntropyMs: config.SNAPSHOT_ANTI_ENTROPY_INTERVAL_MS,
    });
    sync.start(nc);
    // Stopped before NATS drains (closers run in reverse order).
    closer.add('snapshot sync', () => sync.stop());
    checks.snapshot = async () => {
      if (!store.loaded) throw new Error('no snapshot loaded yet');
    };
  }

  return {
    get port() {
      if (port === undefined) throw new Error('gateway not started');
      return port;
    },
    get events() {
      if (!events) throw new Error('gateway not started');
      return events;
    },
    snapshots,
    async start() {
      if (config.REDIS_URL) redis = connectRedis(config.REDIS_URL);
      else log.warn('REDIS_URL is not set: counters and cache live in this process only (single replica)');
      const nc = config.NATS_URL ? connectEvents(config.NATS_URL) : undefined;
      if (!nc) log.warn('NATS_URL is not set: request events are not published');
      const spool = spoolDir(config);
      const publisher = createEventPublisher({
        nc,
        subject: config.REQUEST_EVENTS_SUBJECT,
        spoolDir: spool,
        maxSpoolBytes: config.EVENT_SPOOL_MAX_BYTES,
        log,
        metrics: metrics.registry,
      });
      events = publisher;
      // Closed after the HTTP server drained (closers run in reverse), before NATS drains.
      closer.add('events', () => publisher.close(config.SHUTDOWN_TIMEOUT_MS));
      if (config.CONTROL_PLANE_GRPC_URL && snapshots)
        syncSnapshot(config.CONTROL_PLANE_GRPC_URL, snapshots, nc, spool);
      else {
        log.warn(
          'no control plane configured (CONTROL_PLANE_GRPC_URL): standalone mode, x-service-api-key is not checked',
        );
      }
      const app = createHttpApp({
        log,
        metrics,
        health: { checks, degradable, draining: () => closer.closed },
      });
      // Rate and usage limits come from the snapshot, so they exist in control-plane mode only.
      const limits = snapshots
        ? createLimits({
            redis,
            log,
            registry: metrics.registry,
            config,
            instanceId,
            publishAlert: natsAlertPublisher(nc, config.NATS_NAMESPACE, log),
          })
        : undefined;
      const access = snapshots && accessFromConfig(config, snapshots, log);
      const pipeline = createGatewayPipeline({
        config,
        publish: telemetryEnabled()
          ? publishWithTraceParent((event) => publisher.publish(event))
          : (event) => publisher.publish(event),
        whenKept: (done) => publisher.whenKept(done),
        instanceId,
        log,
        redis,
        access,
        limits,
      });
      const metric = dataPlaneMetrics(metrics.registry);
      audioDurationMetrics(metrics.registry);
      // `/v1/*` skips express (see the pipeline); everything else (health, metrics) is the express app.
      const handler: RequestListener = (req, res) => {
        if (req.url?.startsWith('/v1/')) {
          metric(res);
          void pipeline.http(req, res);
        } else app(req, res);
      };
      const http = await listen(handler, config.PORT, config.HOST, {
        maxHeaderSize: config.MAX_HEADER_BYTES,
        headersTimeout: config.HEADERS_TIMEOUT_MS,
        requestTimeout: config.REQUEST_BODY_TIMEOUT_MS,
      });
      http.server.on('upgrade', (req, socket, head) => void pipeline.upgrade(req, socket, head));
      closer.add('http', () => http.close(config.SHUTDOWN_TIMEOUT_MS));
      port = http.port;
      log.info({ port, host: config.HOST }, 'gateway listening');
    },
    async stop() {
      await closer.closeAll();
      log.info('gateway stopped');
    },
  };
}
