// The control plane's consumer of gateway alerts: UsageAlertEvents from the AIGW_ALERTS stream,
// stored in the alerts table (once per key) and acked only after COMMIT. The control plane owns the
// stream: it is the only consumer (docs/decisions.md, "Alerts are the control plane's").
import { ALERTS_SUBJECT, namespacedStream, namespacedSubject, STREAMS, UsageAlertEvent } from '@aigw/proto';
import { ensureStreams, type Logger } from '@aigw/runtime';
import {
  AckPolicy,
  type ConsumerMessages,
  DeliverPolicy,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from '@nats-io/jetstream';
import type { Kysely } from 'kysely';
import type { ControlDatabase } from '../db/schema.js';
import { invalidAlertEvent } from './alert-event.js';
import { storeAlert } from './alert-store.js';
import type { EmailState } from './alerts.db.js';

/** Alerts wait this long in the stream while no control plane runs. */
export const ALERTS_MAX_AGE_MS = 7 * 86_400_000;
/** One durable consumer shared by every control-plane replica (the work is split between them). */
export const ALERTS_CONSUMER = 'control-plane-alerts';
const NANOS_PER_MS = 1_000_000;
const ACK_WAIT_MS = 30_000;
const RETRY_MS = 1_000;

export interface AlertConsumerOptions {
  readonly db: Kysely<ControlDatabase>;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly namespace: string | undefined;
  readonly replicas: number;
  /** `pending` when SMTP_URL is set, else `off`. */
  readonly emailState: EmailState;
  /** Called after a new alert was stored (wakes the mailer). */
  readonly onStored: (id: string) => void;
  readonly log: Logger;
}

export interface AlertConsumer {
  stop(): Promise<void>;
}

export function alertsStream(namespace: string | undefined) {
  return {
    name: namespacedStream(STREAMS.alerts.name, namespace),
    subjects: [namespacedSubject(ALERTS_SUBJECT, namespace)],
    maxAgeMs: ALERTS_MAX_AGE_MS,
  };
}

export async function startAlertConsumer(options: AlertConsumerOptions): Promise<AlertConsumer> {
  const { db, js, jsm, log } = options;
  const stream = alertsStream(options.namespace);
  await ensureStreams(jsm, [stream], options.replicas);
  const config = {
    ack_policy: AckPolicy.Explicit,
    ack_wait: ACK_WAIT_MS * NANOS_PER_MS,
    // A database outage must not drop an alert: it is redelivered until it is stored.
    max_deliver: -1,
    deliver_policy: DeliverPolicy.All,
  };
  const exists = await jsm.consumers.info(stream.name, ALERTS_CONSUMER).then(
    () => true,
    () => false,
  );
  if (exists) await jsm.consumers.update(stream.name, ALERTS_CONSUMER, config);
  else await jsm.consumers.add(stream.name, { ...config, durable_name: ALERTS_CONSUMER });
  const consumer = await js.consumers.get(stream.name, ALERTS_CONSUMER);

  async function handle(msg: JsMsg): Promise<void> {
    let event: UsageAlertEvent;
    try {
      event = UsageAlertEvent.decode(msg.data);
    } catch (err) {
      log.warn({ err, seq: msg.seq }, 'alert event is not a UsageAlertEvent: dropped');
      msg.term();
      return;
    }
    const problem = invalidAlertEvent(event);
    if (problem) {
      log.warn({ alertId: event.id, problem }, 'invalid alert event: dropped');
      msg.term();
      return;
    }
    try {
      const id = await storeAlert(db, event, options.emailState);
      msg.ack();
      if (id) {
        log.info({ alertId: id, kind: event.kind, entityId: event.entityId }, 'usage alert stored');
        options.onStored(id);
      }
    } catch (err) {
      // Data the table refuses (SQLSTATE classes 22, 23) would be refused forever: set it aside.
      const code = String((err as { code?: unknown }).code ?? '');
      if (code.startsWith('22') || code.startsWith('23')) {
        log.error({ err, alertId: event.id }, 'alert event refused by the database: dropped');
        msg.term();
        return;
      }
      log.warn({ err, alertId: event.id }, 'storing an alert failed; it is redelivered');
      msg.nak(RETRY_MS);
    }
  }

  let messages: ConsumerMessages | undefined = await consumer.consume({ max_messages: 64 });
  const loop = (async () => {
    for await (const msg of messages) await handle(msg);
  })().catch((err: unknown) => log.error({ err }, 'alert consumer stopped'));

  return {
    async stop() {
      const current = messages;
      messages = undefined;
      await current?.close();
      await loop;
    },
  };
}
