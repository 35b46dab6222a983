// Publishes usage-limit alert transitions (UsageAlertEvent) to JetStream for the logger, off the
// request path. Nats-Msg-Id = the alert id, so two replicas reporting one transition store once.
import { ALERTS_SUBJECT, namespacedSubject, UsageAlertEvent } from '@aigw/proto';
import type { Logger } from '@aigw/runtime';
import { jetstream } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';

/** `<namespace>.aigw.alerts.v1`, the subject the logger's AIGW_ALERTS stream captures. */
export function alertsSubject(namespace: string | undefined): string {
  return namespacedSubject(ALERTS_SUBJECT, namespace);
}

/**
 * A `publishAlert` for createLimits. Alerts are rare and each transition is marked in Redis once,
 * so there is no spool: an alert that cannot be published (NATS down) is logged and dropped.
 */
export function natsAlertPublisher(
  nc: Promise<NatsConnection> | undefined,
  namespace: string | undefined,
  log: Logger,
): (event: UsageAlertEvent) => void {
  const subject = alertsSubject(namespace);
  const js = nc?.then((c) => jetstream(c));
  return (event) => {
    if (!js) {
      log.warn({ alertId: event.id }, 'usage alert not published: NATS_URL is not set');
      return;
    }
    const data = UsageAlertEvent.encode(event).finish();
    js.then((client) => client.publish(subject, data, { msgID: event.id })).catch((err: unknown) =>
      log.warn(
        { alertId: event.id, err: err instanceof Error ? err.message : String(err) },
        'usage alert not published',
      ),
    );
  };
}
