// The JetStream streams the logger consumes: created when missing, updated when settings change.
import {
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamManager,
  RetentionPolicy,
  StorageType,
  type StreamConfig,
} from '@nats-io/jetstream';

export interface StreamSpec {
  readonly name: string;
  readonly subjects: readonly string[];
  /** How long an unconsumed event may wait (the logger being down) before the stream drops it. */
  readonly maxAgeMs: number;
}

const NANOS_PER_MS = 1_000_000;
/** Re-published events (same Nats-Msg-Id) within this window are stored once. */
const DUPLICATE_WINDOW_MS = 2 * 60_000;

export async function ensureStreams(
  jsm: JetStreamManager,
  specs: readonly StreamSpec[],
  replicas: number,
): Promise<void> {
  for (const spec of specs) {
    const config: Partial<StreamConfig> & { name: string } = {
      name: spec.name,
      subjects: [...spec.subjects],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      num_replicas: replicas,
      max_age: spec.maxAgeMs * NANOS_PER_MS,
      duplicate_window: DUPLICATE_WINDOW_MS * NANOS_PER_MS,
    };
    const existing = await jsm.streams.info(spec.name).catch((err: unknown) => {
      if (isStreamNotFound(err)) return undefined;
      throw err;
    });
    if (existing) await jsm.streams.update(spec.name, config);
    else await jsm.streams.add(config);
  }
}

/** Readiness: every stream exists (someone deleting one would silently drop events). */
export function streamsReadiness(jsm: JetStreamManager, specs: readonly StreamSpec[]): () => Promise<void> {
  return async () => {
    for (const spec of specs) await jsm.streams.info(spec.name);
  };
}

function isStreamNotFound(err: unknown): boolean {
  return err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound;
}
