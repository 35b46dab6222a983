// JetStream streams an app publishes to or consumes from: created when missing, updated (or left
// alone) when they exist. Typed against the slice of JetStreamManager it uses, so that this package
// needs no dependency on @nats-io/jetstream; apps pass their real manager.

export interface StreamSpec {
  readonly name: string;
  readonly subjects: readonly string[];
  /** How long a stored event may wait (its consumer being down) before the stream drops it. */
  readonly maxAgeMs: number;
}

/** The settings this module writes; a subset of @nats-io/jetstream's StreamConfig. */
export interface ManagedStreamConfig {
  name: string;
  subjects: string[];
  retention: 'limits';
  storage: 'file';
  num_replicas: number;
  max_age: number;
  duplicate_window: number;
}

/** The part of @nats-io/jetstream's JetStreamManager used here. */
export interface StreamsManager {
  readonly streams: {
    info(name: string): Promise<unknown>;
    add(config: ManagedStreamConfig): Promise<unknown>;
    update(name: string, config: ManagedStreamConfig): Promise<unknown>;
  };
}

export interface EnsureStreamsOptions {
  /**
   * Create missing streams but never change existing ones: for a producer that must not lose
   * events published before the stream's owner (the consumer, which sets it up) first started.
   */
  readonly createOnly?: boolean;
}

const NANOS_PER_MS = 1_000_000;
/** Re-published events (same Nats-Msg-Id) within this window are stored once. */
export const DUPLICATE_WINDOW_MS = 2 * 60_000;

// JetStream API error codes (JSStreamNameExistErr, JSStreamNotFoundErr).
const STREAM_NAME_EXISTS = 10058;
const STREAM_NOT_FOUND = 10059;

export async function ensureStreams(
  jsm: StreamsManager,
  specs: readonly StreamSpec[],
  replicas: number,
  options: EnsureStreamsOptions = {},
): Promise<void> {
  for (const spec of specs) {
    const config: ManagedStreamConfig = {
      name: spec.name,
      subjects: [...spec.subjects],
      retention: 'limits',
      storage: 'file',
      num_replicas: replicas,
      max_age: spec.maxAgeMs * NANOS_PER_MS,
      duplicate_window: DUPLICATE_WINDOW_MS * NANOS_PER_MS,
    };
    const exists = await jsm.streams.info(spec.name).then(
      () => true,
      (err: unknown) => {
        if (hasApiCode(err, STREAM_NOT_FOUND)) return false;
        throw err;
      },
    );
    if (exists) {
      if (!options.createOnly) await jsm.streams.update(spec.name, config);
      continue;
    }
    try {
      await jsm.streams.add(config);
    } catch (err) {
      // Another replica (or app) created it since `info`: the same outcome as finding it.
      if (!hasApiCode(err, STREAM_NAME_EXISTS)) throw err;
      if (!options.createOnly) await jsm.streams.update(spec.name, config);
    }
  }
}

/** Readiness: every stream exists (someone deleting one would silently drop events). */
export function streamsReadiness(jsm: StreamsManager, specs: readonly StreamSpec[]): () => Promise<void> {
  return async () => {
    for (const spec of specs) await jsm.streams.info(spec.name);
  };
}

function hasApiCode(err: unknown, code: number): boolean {
  return err instanceof Error && (err as { code?: unknown }).code === code;
}
