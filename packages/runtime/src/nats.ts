// One NATS connection per app: reconnects forever, logs status changes, answers readiness.
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import type { Logger } from 'pino';

export interface NatsOptions {
  readonly url: string;
  /** Client name shown by the server (`app@instance`). */
  readonly name: string;
  readonly log: Logger;
}

/**
 * Whether each connection made here is up, as its status events tell: a readiness check must not
 * wait for a round trip it knows cannot happen (nats.js keeps a flush pending until it reconnects).
 */
const connectionUp = new WeakMap<NatsConnection, boolean>();

export async function connectNats(options: NatsOptions): Promise<NatsConnection> {
  const nc = await connect({
    servers: options.url,
    name: options.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    pingInterval: 10_000,
    // nats.js otherwise builds an Error (a stack trace) for every request, in case it times out:
    // measurable per published event on the gateway, and the trace adds nothing to our logs.
    noAsyncTraces: true,
  });
  const log = options.log.child({ component: 'nats' });
  log.info({ server: nc.getServer() }, 'connected to NATS');
  connectionUp.set(nc, true);
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') connectionUp.set(nc, false);
      else if (status.type === 'reconnect') connectionUp.set(nc, true);
      if (status.type === 'disconnect' || status.type === 'error')
        log.warn({ status: status.type }, 'NATS status');
      else if (status.type === 'reconnect') log.info({ status: status.type }, 'NATS reconnected');
    }
  })();
  return nc;
}

/** False while a connection made by connectNats is known to be disconnected (or is closed). */
export function natsConnected(nc: NatsConnection): boolean {
  return !nc.isClosed() && connectionUp.get(nc) !== false;
}

/**
 * Ready when the connection is open and the server answers a round trip; fails at once while the
 * connection is known to be down, instead of waiting out the readiness check's timeout.
 */
export function natsReadiness(nc: NatsConnection): () => Promise<void> {
  return async () => {
    if (nc.isClosed()) throw new Error('NATS connection closed');
    if (connectionUp.get(nc) === false) throw new Error('NATS disconnected (reconnecting)');
    await nc.flush();
  };
}

/** Drains a connection that is up; closes one that is not (a drain would wait for the reconnect). */
export async function closeNats(nc: NatsConnection): Promise<void> {
  if (nc.isClosed()) return;
  if (natsConnected(nc)) await nc.drain();
  else await nc.close();
}
