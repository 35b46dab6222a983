// Reads a SnapshotService frame sequence (header, batches, trailer) into verified entities. The same
// check guards the gRPC stream and the last-known-good file: nothing unverified is ever installed.
import {
  type Entity,
  isSupportedSchemaVersion,
  SCHEMA_VERSION,
  type SnapshotChunk,
  snapshotChecksum,
} from '@aigw/proto';

/** Why a load was refused (the `reason` label of gateway_snapshot_load_failures_total). */
export type LoadFailure = 'unavailable' | 'incomplete' | 'mismatch' | 'schema_version' | 'malformed';

export class SnapshotLoadError extends Error {
  constructor(
    readonly reason: LoadFailure,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'SnapshotLoadError';
  }
}

interface Common {
  readonly revision: number;
  readonly generatedAtMs: number;
  /** The trailer's checksum (verified against the entities when they were sent). */
  readonly checksum: string;
}

/** A verified snapshot, or the server's word that the client's revision is current. */
export type ReceivedSnapshot =
  | (Common & { readonly notModified: false; readonly entities: readonly Entity[] })
  | (Common & { readonly notModified: true; readonly entityCount: number });

function fail(reason: LoadFailure, message: string): never {
  throw new SnapshotLoadError(reason, message);
}

/**
 * Consumes `frames` to the end. Throws SnapshotLoadError when the header is missing or of an
 * unknown schema version, when the trailer is missing (a cut stream), or when the count, batch
 * count or checksum disagree with what arrived.
 */
export async function receiveSnapshot(
  frames: AsyncIterable<SnapshotChunk> | Iterable<SnapshotChunk>,
): Promise<ReceivedSnapshot> {
  let header: Extract<SnapshotChunk['chunk'], { $case: 'header' }>['value'] | undefined;
  let trailer: Extract<SnapshotChunk['chunk'], { $case: 'trailer' }>['value'] | undefined;
  const entities: Entity[] = [];
  let batches = 0;
  for await (const frame of frames) {
    const chunk = frame.chunk;
    if (!chunk) fail('malformed', 'empty snapshot frame');
    else if (trailer) fail('malformed', `${chunk.$case} frame after the trailer`);
    else if (chunk.$case === 'header') {
      if (header) fail('malformed', 'second header frame');
      if (!isSupportedSchemaVersion(chunk.value.schemaVersion))
        fail('schema_version', `snapshot schema version ${chunk.value.schemaVersion} is not supported`);
      header = chunk.value;
    } else if (!header) fail('malformed', `${chunk.$case} frame before the header`);
    else if (chunk.$case === 'batch') {
      if (header.notModified) fail('malformed', 'batch frame in a not-modified snapshot');
      batches++;
      for (const entity of chunk.value.entities) entities.push(entity);
    } else trailer = chunk.value;
  }
  if (!header) return fail('incomplete', 'snapshot ended before its header');
  if (!trailer) return fail('incomplete', 'snapshot ended before its trailer');
  if (trailer.entityCount !== header.entityCount)
    fail('mismatch', `trailer counts ${trailer.entityCount} entities, header ${header.entityCount}`);
  if (trailer.batchCount !== batches)
    fail('mismatch', `trailer counts ${trailer.batchCount} batches, ${batches} arrived`);
  const common = {
    revision: header.revision,
    generatedAtMs: header.generatedAtMs,
    checksum: trailer.checksum,
  };
  if (header.notModified) return { ...common, notModified: true, entityCount: header.entityCount };
  if (entities.length !== header.entityCount)
    fail('mismatch', `${entities.length} entities arrived, header announced ${header.entityCount}`);
  const ids = new Set(entities.map((e) => `${e.kind}:${e.id}`));
  if (ids.size !== entities.length) fail('mismatch', 'an entity appears twice');
  if (snapshotChecksum(entities) !== trailer.checksum) fail('mismatch', 'snapshot checksum does not match');
  return { ...common, notModified: false, entities };
}

/** The frames that describe `entities` at `revision` (what the LKG file stores). */
export function snapshotFrames(
  entities: readonly Entity[],
  revision: number,
  generatedAtMs: number,
  checksum: string,
  batchSize = 500,
): SnapshotChunk[] {
  const frames: SnapshotChunk[] = [
    {
      chunk: {
        $case: 'header',
        value: {
          schemaVersion: SCHEMA_VERSION,
          revision,
          entityCount: entities.length,
          generatedAtMs,
          notModified: false,
          kinds: [],
        },
      },
    },
  ];
  for (let i = 0; i < entities.length; i += batchSize)
    frames.push({ chunk: { $case: 'batch', value: { entities: entities.slice(i, i + batchSize) } } });
  const batchCount = frames.length - 1;
  frames.push({ chunk: { $case: 'trailer', value: { entityCount: entities.length, checksum, batchCount } } });
  return frames;
}
