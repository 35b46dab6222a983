// The gateway process: HTTP data plane on PORT, Redis for counters, NATS for events.

import {
  type App,
  Closer,
  connectNats,
  createHttpApp,
  createLogger,
  createMetrics,
  type Logger,
  listen,
  natsReadiness,
  type ReadinessCheck,
} from '@aigw/runtime';
import type { NatsConnection } from '@nats-io/nats-core';
import type { RequestHandler } from 'express';
import { Redis } from 'ioredis';
import type { GatewayConfig } from './config.js';
import { gatewayError } from './errors.js';

export interface GatewayApp extends App {
  /** The bound HTTP port (useful with PORT=0 in tests). */
  readonly port: number;
}

export function createApp(config: GatewayConfig, options: { log?: Logger } = {}): GatewayApp {
  const log =
    options.log ?? createLogger({ app: 'gateway', level: config.LOG_LEVEL, instanceId: config.INSTANCE_ID });
  const metrics = createMetrics('gateway');
  const closer = new Closer(log);
  const checks: Record<string, ReadinessCheck> = {};
  let port: number | undefined;

  const passThrough: RequestHandler = (req, _res, next) => {
    next(gatewayError('route_not_found', `no provider route for ${req.method} ${req.path} yet`));
  };

  // Redis and NATS may be down when the gateway starts: it starts anyway, reports not ready,
  // and keeps reconnecting in the background (limits degrade instead of the data plane stopping).
  function connectRedis(url: string): void {
    const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
    redis.on('error', (err: Error) => log.warn({ err: err.message }, 'redis error'));
    closer.add('redis', () => redis.disconnect());
    checks.redis = async () => {
      await redis.ping();
    };
  }

  function connectEvents(url: string): void {
    let nats: NatsConnection | undefined;
    const connecting = connectNats({
      url,
      name: `gateway@${config.INSTANCE_ID ?? process.pid}`,
      log,
      waitOnFirstConnect: true,
    }).then((nc) => {
      nats = nc;
      return nc;
    });
    closer.add('nats', async () => {
      if (nats) await nats.drain();
      else void connecting.then((nc) => nc.close());
    });
    checks.nats = async () => {
      if (!nats) throw new Error('not connected yet');
      await natsReadiness(nats)();
    };
  }

  return {
    get port() {
      if (port === undefined) throw new Error('gateway not started');
      return port;
    },
    async start() {
      if (config.REDIS_URL) connectRedis(config.REDIS_URL);
      else log.warn('REDIS_URL is not set: counters and cache live in this process only (single replica)');
      if (config.NATS_URL) connectEvents(config.NATS_URL);
      else {
        log.warn('NATS_URL is not set: request events are not published');
      }
      if (!config.CONTROL_PLANE_GRPC_URL) {
        log.warn(
          'no control plane configured (CONTROL_PLANE_GRPC_URL): standalone mode, x-service-api-key is not checked',
        );
      }
      const app = createHttpApp({
        log,
        metrics,
        health: { checks, draining: () => closer.closed },
        routes: (router) => {
          router.use('/v1', passThrough);
        },
      });
      const http = await listen(app, config.PORT, config.HOST);
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
