// Stream and subject names under NATS_NAMESPACE, the same rule as the control plane's
// (`<ns>_AIGW_REQUESTS`, `<ns>.aigw.requests.v1`), so that installations can share one NATS.
import { namespacedStream, namespacedSubject, STREAMS } from '@aigw/proto';
import type { StreamSpec } from '@aigw/runtime';

const DAY_MS = 86_400_000;
/** Events wait in the stream while the logger is down; a week covers a long outage. */
export const LOGGER_STREAM_MAX_AGE_MS = 7 * DAY_MS;

export interface LoggerStreams {
  readonly requests: StreamSpec;
  readonly audit: StreamSpec;
}

export function loggerStreams(namespace?: string): LoggerStreams {
  const named = (spec: { name: string; subjects: readonly string[] }): StreamSpec => ({
    name: namespacedStream(spec.name, namespace),
    subjects: spec.subjects.map((s) => namespacedSubject(s, namespace)),
    maxAgeMs: LOGGER_STREAM_MAX_AGE_MS,
  });
  // AIGW_ALERTS belongs to the control plane, which stores and e-mails alerts (docs/decisions.md).
  return { requests: named(STREAMS.requests), audit: named(STREAMS.audit) };
}
