// The streams the outbox relay publishes to, and which stream and NATS subject an outbox row goes to.
import {
  AUDIT_SUBJECT,
  CHANGES_SUBJECT_PREFIX,
  namespacedStream,
  namespacedSubject,
  STREAMS,
} from '@aigw/proto';
import { ensureStreams, type StreamsManager } from '@aigw/runtime';

const HOUR_MS = 3_600_000;
/** Gateways that were away longer than this refetch the snapshot instead of replaying changes. */
export const CHANGES_MAX_AGE_MS = 24 * HOUR_MS;
/** The logger's setting for AIGW_AUDIT (apps/logger/src/app.ts): keep both equal. */
export const AUDIT_MAX_AGE_MS = 7 * 24 * HOUR_MS;

export interface NatsRoute {
  readonly subject: string;
  readonly stream: string;
}

/**
 * Stream and subject of a stored outbox subject. `namespace` prefixes both (`<ns>_AIGW_CHANGES`,
 * `<ns>.aigw.changes.v1.<kind>`) so that several installations or test runs can share one NATS;
 * rows store the plain subject, so the namespace can change without rewriting them.
 */
export function natsRoute(subject: string, namespace?: string): NatsRoute {
  const stream = subject.startsWith(`${CHANGES_SUBJECT_PREFIX}.`)
    ? STREAMS.changes.name
    : subject === AUDIT_SUBJECT
      ? STREAMS.audit.name
      : undefined;
  if (stream === undefined) throw new Error(`no stream captures outbox subject ${subject}`);
  return { subject: namespacedSubject(subject, namespace), stream: namespacedStream(stream, namespace) };
}

/**
 * AIGW_CHANGES belongs to the control plane: created or updated. AIGW_AUDIT belongs to the logger,
 * but is created here when missing (never changed), so audit events written before the logger's
 * first start are kept instead of being refused for want of a stream.
 */
export async function ensureControlPlaneStreams(
  jsm: StreamsManager,
  replicas: number,
  namespace?: string,
): Promise<void> {
  const named = (spec: { name: string; subjects: readonly string[] }, maxAgeMs: number) => ({
    name: namespacedStream(spec.name, namespace),
    subjects: spec.subjects.map((s) => namespacedSubject(s, namespace)),
    maxAgeMs,
  });
  await ensureStreams(jsm, [named(STREAMS.changes, CHANGES_MAX_AGE_MS)], replicas);
  await ensureStreams(jsm, [named(STREAMS.audit, AUDIT_MAX_AGE_MS)], replicas, { createOnly: true });
}
