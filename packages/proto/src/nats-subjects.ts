// JetStream stream and subject names of the aigw.v1 event payloads, and the payload schema version.
// Producers publish with Nats-Msg-Id = the payload's id so JetStream de-duplicates redeliveries.
import { isEntityKind } from './entity-kinds.js';
import { EntityKind } from './gen/aigw/v1/entities.js';

/** `schema_version` of every aigw.v1 event payload this code writes and fully understands. */
export const SCHEMA_VERSION = 1;

/** True when a reader built on this package can interpret a payload of that schema version. */
export function isSupportedSchemaVersion(version: number): boolean {
  return Number.isInteger(version) && version >= 1 && version <= SCHEMA_VERSION;
}

/** RequestEventBatch: gateway -> logger. Nats-Msg-Id = `<first event id>+<event count>`. */
export const REQUESTS_STREAM = 'AIGW_REQUESTS';
export const REQUESTS_SUBJECT = 'aigw.requests.v1';

/** ChangeEvent: control-plane outbox relay -> gateways. Nats-Msg-Id = ChangeEvent.event_id. */
export const CHANGES_STREAM = 'AIGW_CHANGES';
export const CHANGES_SUBJECT_PREFIX = 'aigw.changes.v1';
/** Matches the change subject of every entity kind. */
export const CHANGES_SUBJECT_WILDCARD = `${CHANGES_SUBJECT_PREFIX}.*`;

/** AuditEvent: control-plane outbox relay -> logger. Nats-Msg-Id = the outbox row id. */
export const AUDIT_STREAM = 'AIGW_AUDIT';
export const AUDIT_SUBJECT = 'aigw.audit.v1';

/** UsageAlertEvent: gateway -> control plane (stored and e-mailed there). Nats-Msg-Id = UsageAlertEvent.id. */
export const ALERTS_STREAM = 'AIGW_ALERTS';
export const ALERTS_SUBJECT = 'aigw.alerts.v1';

export interface StreamSpec {
  readonly name: string;
  readonly subjects: readonly string[];
}

/** Every stream with the subjects it captures, for stream creation at startup. */
export const STREAMS: Readonly<Record<'requests' | 'changes' | 'audit' | 'alerts', StreamSpec>> =
  Object.freeze({
    requests: Object.freeze({ name: REQUESTS_STREAM, subjects: Object.freeze([REQUESTS_SUBJECT]) }),
    changes: Object.freeze({ name: CHANGES_STREAM, subjects: Object.freeze([CHANGES_SUBJECT_WILDCARD]) }),
    audit: Object.freeze({ name: AUDIT_STREAM, subjects: Object.freeze([AUDIT_SUBJECT]) }),
    alerts: Object.freeze({ name: ALERTS_STREAM, subjects: Object.freeze([ALERTS_SUBJECT]) }),
  });

/** `aigw.changes.v1.<kind>`, the kind being the enum name in lower case (`api_key`). */
export function changeSubject(kind: EntityKind): string {
  if (!isEntityKind(kind)) throw new RangeError(`no change subject for entity kind ${kind}`);
  return `${CHANGES_SUBJECT_PREFIX}.${EntityKind[kind].toLowerCase()}`;
}

/** The entity kind a change subject carries; undefined for any other subject. */
export function entityKindFromSubject(subject: string): EntityKind | undefined {
  const prefix = `${CHANGES_SUBJECT_PREFIX}.`;
  if (!subject.startsWith(prefix)) return undefined;
  const token = subject.slice(prefix.length);
  if (token !== token.toLowerCase()) return undefined;
  const kind = (EntityKind as unknown as Record<string, EntityKind | undefined>)[token.toUpperCase()];
  return kind !== undefined && isEntityKind(kind) ? kind : undefined;
}

/**
 * A subject under NATS_NAMESPACE (`<ns>.<subject>`), so that installations or test runs can share
 * one NATS; the subject itself when there is no namespace. Producers and consumers must agree.
 */
export function namespacedSubject(subject: string, namespace: string | undefined): string {
  return namespace ? `${namespace}.${subject}` : subject;
}

/** A stream name under NATS_NAMESPACE (`<ns>_<name>`): stream names cannot hold dots. */
export function namespacedStream(name: string, namespace: string | undefined): string {
  return namespace ? `${namespace}_${name}` : name;
}
