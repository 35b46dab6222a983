// Whether the publisher's NATS connection can take publishes right now, kept current from the
// connection's status stream; accepts a connection that is still being established.
import type { Logger } from '@aigw/runtime';
import { type JetStreamClient, jetstream } from '@nats-io/jetstream';
import type { NatsConnection, Status } from '@nats-io/nats-core';
import { errorMessage } from './error-message.js';

export class NatsLink {
  private nc: NatsConnection | undefined;
  private client: JetStreamClient | undefined;
  private connected = false;
  private stopped = false;
  private statusIterator: AsyncIterable<Status> | undefined;

  constructor(
    source: NatsConnection | Promise<NatsConnection>,
    private readonly options: {
      readonly timeoutMs: number;
      readonly log: Logger;
      /** Called when publishing becomes possible (first connection or reconnect). */
      readonly onUp: () => void;
    },
  ) {
    if (source instanceof Promise) {
      source.then(
        (nc) => this.attach(nc),
        (err: unknown) =>
          options.log.error({ err: errorMessage(err) }, 'request events: NATS connection failed'),
      );
    } else {
      this.attach(source);
    }
  }

  /** The JetStream client when the connection is up; undefined while down, connecting or closed. */
  get js(): JetStreamClient | undefined {
    if (!this.connected || !this.nc || this.nc.isClosed()) return undefined;
    return this.client;
  }

  stop(): void {
    this.stopped = true;
    // QueuedIterator has stop(); the public type only promises AsyncIterable.
    (this.statusIterator as { stop?: () => void } | undefined)?.stop?.();
  }

  private attach(nc: NatsConnection): void {
    if (this.stopped) return;
    this.nc = nc;
    this.client = jetstream(nc, { timeout: this.options.timeoutMs });
    this.connected = !nc.isClosed() && isConnectedNow(nc);
    const statuses = nc.status();
    this.statusIterator = statuses;
    void this.watch(statuses);
    if (this.connected) this.options.onUp();
  }

  private async watch(statuses: AsyncIterable<Status>): Promise<void> {
    try {
      for await (const status of statuses) {
        if (status.type === 'disconnect' || status.type === 'close') this.connected = false;
        else if (status.type === 'reconnect') {
          this.connected = true;
          this.options.onUp();
        }
      }
    } catch (err) {
      this.options.log.warn({ err: errorMessage(err) }, 'request events: NATS status stream ended');
    }
  }
}

/**
 * Whether a connection handed over mid-outage is up. The public API only reports changes (status()),
 * so read the client's own flag when it is there and assume "up" otherwise: a wrong guess costs one
 * publish timeout per in-flight event, which then goes to the spool.
 */
function isConnectedNow(nc: NatsConnection): boolean {
  const connected = (nc as unknown as { protocol?: { connected?: unknown } }).protocol?.connected;
  return typeof connected === 'boolean' ? connected : true;
}
