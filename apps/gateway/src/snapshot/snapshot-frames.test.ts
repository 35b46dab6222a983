import { type Entity, type SnapshotChunk, snapshotChecksum } from '@aigw/proto';
import { describe, expect, it } from 'vitest';
import { apiKey, provider, workspace } from './entities.test-support.js';
import { receiveSnapshot, SnapshotLoadError, snapshotFrames } from './snapshot-frames.js';

const entities: Entity[] = [apiKey('k1', 1), provider('p1', 2), workspace('w1', 3)];
const good = () => snapshotFrames(entities, 42, 1_000, snapshotChecksum(entities), 2);

async function failure(frames: SnapshotChunk[]): Promise<SnapshotLoadError> {
  const err = await receiveSnapshot(frames).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SnapshotLoadError);
  return err as SnapshotLoadError;
}

describe('receiveSnapshot', () => {
  it('accepts header, batches and trailer that agree', async () => {
    const frames = good();
    expect(frames).toHaveLength(4);
    const received = await receiveSnapshot(frames);
    expect(received).toMatchObject({ notModified: false, revision: 42, generatedAtMs: 1_000 });
    expect(received.notModified || received.entities.map((e) => e.id)).toEqual(['k1', 'p1', 'w1']);
  });

  it('refuses a stream cut before its trailer', async () => {
    expect((await failure(good().slice(0, -1))).reason).toBe('incomplete');
    expect((await failure([])).reason).toBe('incomplete');
  });

  it('refuses a checksum, entity count or batch count that does not match', async () => {
    const frames = good();
    const trailer = frames.at(-1)?.chunk;
    if (trailer?.$case !== 'trailer') throw new Error('no trailer');
    trailer.value.checksum = snapshotChecksum([...entities, apiKey('k2', 1)]);
    expect((await failure(frames)).reason).toBe('mismatch');

    const missingBatch = good();
    missingBatch.splice(1, 1);
    expect((await failure(missingBatch)).reason).toBe('mismatch');

    const lying = snapshotFrames(entities, 42, 1_000, snapshotChecksum(entities));
    const header = lying[0]?.chunk;
    if (header?.$case !== 'header') throw new Error('no header');
    header.value.entityCount = 4;
    expect((await failure(lying)).reason).toBe('mismatch');
  });

  it('refuses an entity sent twice even when the counts add up', async () => {
    const twice = [apiKey('k1', 1), apiKey('k1', 1)];
    expect((await failure(snapshotFrames(twice, 1, 0, snapshotChecksum(twice)))).reason).toBe('mismatch');
  });

  it('refuses an unknown schema version before reading any entity', async () => {
    const frames = good();
    const header = frames[0]?.chunk;
    if (header?.$case !== 'header') throw new Error('no header');
    header.value.schemaVersion = 2;
    expect((await failure(frames)).reason).toBe('schema_version');
  });

  it('refuses frames out of order', async () => {
    const frames = good();
    expect((await failure(frames.slice(1))).reason).toBe('malformed');
    expect((await failure([...frames, frames[1] as SnapshotChunk])).reason).toBe('malformed');
    expect((await failure([frames[0] as SnapshotChunk, ...frames])).reason).toBe('malformed');
  });

  it('passes on a not-modified answer with the checksum the client should hold', async () => {
    const checksum = snapshotChecksum(entities);
    const received = await receiveSnapshot([
      {
        chunk: {
          $case: 'header',
          value: {
            schemaVersion: 1,
            revision: 7,
            entityCount: 3,
            generatedAtMs: 5,
            notModified: true,
            kinds: [],
          },
        },
      },
      { chunk: { $case: 'trailer', value: { entityCount: 3, checksum, batchCount: 0 } } },
    ]);
    expect(received).toEqual({ notModified: true, revision: 7, generatedAtMs: 5, checksum, entityCount: 3 });
  });
});
