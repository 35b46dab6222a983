// One NATS connection per app: reconnects forever, logs status changes, answers readiness.
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import type { Logger } from 'pino';

export interface NatsOptions {
  readonly url: string;
  /** Client name shown by the server (`app@instance`). */
  readonly name: string;
  readonly log: Logger;
  /** Keep retrying the first connection instead of failing (for apps that start degraded). */
  readonly waitOnFirstConnect?: boolean;
}

export async function connectNats(options: NatsOptions): Promise<NatsConnection> {
  const nc = await connect({
    servers: options.url,
    name: options.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    pingInterval: 10_000,
    waitOnFirstConnect: options.waitOnFirstConnect ?? false,
    // nats.js otherwise builds an Error (a stack trace) for every request, in case it times out:
    // measurable per published event on the gateway, and the trace adds nothing to our logs.
    noAsyncTraces: true,
  });
  const log = options.log.child({ component: 'nats' });
  log.info({ server: nc.getServer() }, 'connected to NATS');
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect' || status.type === 'error')
        log.warn({ status: status.type }, 'NATS status');
      else if (status.type === 'reconnect') log.info({ status: status.type }, 'NATS reconnected');
    }
  })();
  return nc;
}

/** Ready when the connection is open and the server answers a round trip. */
export function natsReadiness(nc: NatsConnection): () => Promise<void> {
  return async () => {
    if (nc.isClosed()) throw new Error('NATS connection closed');
    await nc.flush();
  };
}
