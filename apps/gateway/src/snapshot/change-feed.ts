// Change events from the control plane (AIGW_CHANGES, `[<ns>.]aigw.changes.v1.*`): a core NATS
// subscription delivering what is published from now on. JetStream keeps the stream for other
// readers; the gateway needs no replay because every gap (reconnect, dropped message) is answered
// with a full snapshot refetch.
import {
  CHANGES_SUBJECT_WILDCARD,
  ChangeEvent,
  isSupportedSchemaVersion,
  namespacedSubject,
} from '@aigw/proto';
import type { Logger } from '@aigw/runtime';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';

/** Why the feed can no longer be trusted to be complete, or cannot read what it got. */
export type FeedGap = 'nats_reconnect' | 'slow_consumer' | 'schema_version' | 'unreadable';

export interface ChangeFeedOptions {
  readonly nc: NatsConnection;
  /** NATS_NAMESPACE: the control plane publishes to `<ns>.aigw.changes.v1.<kind>`. */
  readonly namespace?: string | undefined;
  readonly log: Logger;
  onChange(event: ChangeEvent): void;
  /** A refetch is needed: events may have been missed or could not be read. */
  onGap(reason: FeedGap): void;
}

export interface ChangeFeed {
  /** Resolves once the server has registered the subscription (subscribe first, then fetch). */
  readonly ready: Promise<void>;
  close(): void;
}

export function changeSubjectWildcard(namespace?: string): string {
  return namespacedSubject(CHANGES_SUBJECT_WILDCARD, namespace);
}

export function openChangeFeed(options: ChangeFeedOptions): ChangeFeed {
  const { nc, log } = options;
  const sub: Subscription = nc.subscribe(changeSubjectWildcard(options.namespace), {
    callback: (err, msg) => {
      if (err) {
        log.warn({ err: err.message }, 'change feed error');
        options.onGap('unreadable');
        return;
      }
      let event: ChangeEvent;
      try {
        event = ChangeEvent.decode(msg.data);
      } catch (decodeErr) {
        log.warn({ subject: msg.subject, err: (decodeErr as Error).message }, 'unreadable change event');
        options.onGap('unreadable');
        return;
      }
      if (!isSupportedSchemaVersion(event.schemaVersion)) {
        log.warn({ schemaVersion: event.schemaVersion }, 'change event of an unknown schema version');
        options.onGap('schema_version');
        return;
      }
      if (!event.entity) {
        log.warn({ eventId: event.eventId }, 'change event without an entity');
        options.onGap('unreadable');
        return;
      }
      options.onChange(event);
    },
  });
  const statuses = nc.status()[Symbol.asyncIterator]();
  void (async () => {
    for (;;) {
      const next = await statuses.next();
      if (next.done) return;
      if (next.value.type === 'reconnect') options.onGap('nats_reconnect');
      else if (next.value.type === 'slowConsumer') options.onGap('slow_consumer');
    }
  })().catch((err: unknown) => log.warn({ err }, 'NATS status watch ended'));
  return {
    ready: nc.flush(),
    close() {
      void statuses.return?.();
      if (!sub.isClosed()) sub.unsubscribe();
    },
  };
}
