// Test helpers for alerts: gateway alert events published to NATS, rows written straight into
// control.alerts (as the consumer would) and their active state.
import { randomUUID } from 'node:crypto';
import {
  ALERTS_SUBJECT,
  EntityKind,
  namespacedSubject,
  SCHEMA_VERSION,
  UsageAlertEvent,
  UsageAlertKind,
  UsageLimitType,
} from '@aigw/proto';
import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type pg from 'pg';
import { alertDedupeKey } from './alert-event.js';

export interface TestAlert {
  readonly organisationId: string;
  readonly subjectKind: string;
  readonly subjectId: string;
  readonly kind: 'threshold' | 'exhausted';
  readonly group: Record<string, string>;
  readonly workspaceId?: string | null;
}

/** Stores the alert unless the same one is active (the consumer's rule). */
export async function insertAlert(pool: pg.Pool, alert: TestAlert): Promise<void> {
  const key = `${alert.subjectKind}:${alert.subjectId}:${JSON.stringify(alert.group)}:0:${alert.kind}`;
  await pool.query(
    `insert into control.alerts (id, dedupe_key, organisation_id, workspace_id, kind, subject_kind, subject_id,
       group_values, limit_type, usage, credit_limit, occurred_at, email_state)
     values ($1, $2, $3, $4, $5, $6, $7, $8, 'cost', 1, 1, now(), 'off')
     on conflict (dedupe_key) where reset_at is null do nothing`,
    [
      randomUUID(),
      key,
      alert.organisationId,
      alert.workspaceId ?? null,
      alert.kind,
      alert.subjectKind,
      alert.subjectId,
      JSON.stringify(alert.group),
    ],
  );
}

/** [threshold active, exhausted active] of one subject's group. */
export async function activeAlerts(
  pool: pg.Pool,
  subject: { kind: string; id: string },
  group: Record<string, string>,
): Promise<[boolean, boolean]> {
  const { rows } = await pool.query(
    `select kind from control.alerts
     where subject_kind = $1 and subject_id = $2 and group_values = $3::jsonb and reset_at is null`,
    [subject.kind, subject.id, JSON.stringify(group)],
  );
  const kinds = new Set(rows.map((r: { kind: string }) => r.kind));
  return [kinds.has('threshold'), kinds.has('exhausted')];
}

/** Publishes gateway alert events to the namespaced AIGW_ALERTS subject, as a gateway does. */
export async function alertPublisher(natsUrl: string, namespace: string) {
  const nc = await connect({ servers: natsUrl });
  const js = jetstream(nc);
  const subject = namespacedSubject(ALERTS_SUBJECT, namespace);
  return {
    /** `msgId` defaults to the event id (the gateway's Nats-Msg-Id). */
    async publish(event: UsageAlertEvent, msgId = event.id): Promise<void> {
      await js.publish(subject, UsageAlertEvent.encode(event).finish(), { msgID: msgId });
    },
    close: () => nc.drain(),
  };
}

/** A UsageAlertEvent as a gateway builds it (amounts in micro-USD for cost). */
export function usageAlertEvent(
  fields: Partial<UsageAlertEvent> & Pick<UsageAlertEvent, 'organisationId' | 'entityId'>,
): UsageAlertEvent {
  const event = UsageAlertEvent.fromPartial({
    schemaVersion: SCHEMA_VERSION,
    occurredAtMs: Date.now(),
    kind: UsageAlertKind.THRESHOLD,
    entityKind: EntityKind.USAGE_LIMIT_POLICY,
    type: UsageLimitType.COST,
    usage: 80_500_000,
    creditLimit: 100_000_000,
    alertThreshold: 80_000_000,
    periodStartMs: Date.UTC(2026, 10, 1),
    instanceId: 'gw-test',
    ...fields,
  });
  return { ...event, id: fields.id ?? alertDedupeKey(event) };
}

/** Polls `read` until `done` holds for its value (the test's own timeout bounds the wait). */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
