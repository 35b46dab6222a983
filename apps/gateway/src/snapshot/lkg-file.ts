// The last-known-good snapshot file: what a gateway serves when it starts while the control plane is
// unreachable. The same header/batch/trailer frames as the gRPC stream, so it is verified the same way.
// Entities are stored as the control plane sent them: credentials stay sealed envelopes.
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setImmediate } from 'node:timers/promises';
import { SnapshotChunk } from '@aigw/proto';
import { Snapshot } from './snapshot.js';
import { receiveSnapshot, SnapshotLoadError, snapshotFrames } from './snapshot-frames.js';

const MAGIC = Buffer.from('AIGW-SNAPSHOT-LKG-1\n');
const LENGTH_BYTES = 4;

export interface LastKnownGood {
  readonly snapshot: Snapshot;
  /** When this state was last confirmed against the control plane. */
  readonly syncedAtMs: number;
}

/** The file frame by frame (magic first), encoded as it is consumed. */
function* fileParts(snapshot: Snapshot, syncedAtMs: number): Generator<Buffer> {
  yield MAGIC;
  const entities = [...snapshot.entities()];
  for (const frame of snapshotFrames(entities, snapshot.revision, syncedAtMs, snapshot.checksum())) {
    const body = SnapshotChunk.encode(frame).finish();
    const length = Buffer.alloc(LENGTH_BYTES);
    length.writeUInt32BE(body.length);
    yield Buffer.concat([length, body]);
  }
}

export function encodeLastKnownGood(snapshot: Snapshot, syncedAtMs: number): Buffer {
  return Buffer.concat([...fileParts(snapshot, syncedAtMs)]);
}

export async function decodeLastKnownGood(bytes: Buffer): Promise<LastKnownGood> {
  if (!bytes.subarray(0, MAGIC.length).equals(MAGIC))
    throw new SnapshotLoadError('malformed', 'not a last-known-good snapshot file');
  const frames: SnapshotChunk[] = [];
  let at = MAGIC.length;
  while (at < bytes.length) {
    if (at + LENGTH_BYTES > bytes.length)
      throw new SnapshotLoadError('incomplete', 'file ends inside a frame');
    const length = bytes.readUInt32BE(at);
    at += LENGTH_BYTES;
    if (at + length > bytes.length) throw new SnapshotLoadError('incomplete', 'file ends inside a frame');
    try {
      frames.push(SnapshotChunk.decode(bytes.subarray(at, at + length)));
    } catch (err) {
      throw new SnapshotLoadError('malformed', 'unreadable frame', { cause: err });
    }
    at += length;
  }
  const received = await receiveSnapshot(frames);
  if (received.notModified) throw new SnapshotLoadError('malformed', 'file holds no entities frame set');
  return {
    snapshot: Snapshot.of(received.entities, received.revision),
    syncedAtMs: received.generatedAtMs,
  };
}

/** Writes the file atomically (temp file, fsync, rename): a crash leaves the old file or the new one. */
export async function writeLastKnownGood(
  path: string,
  snapshot: Snapshot,
  syncedAtMs: number,
): Promise<void> {
  // One frame (500 entities) per event-loop turn: a large snapshot must not stall requests.
  const parts: Buffer[] = [];
  for (const part of fileParts(snapshot, syncedAtMs)) {
    parts.push(part);
    await setImmediate();
  }
  const bytes = Buffer.concat(parts);
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  try {
    const file = await open(temp, 'w', 0o600);
    try {
      await file.writeFile(bytes);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, path);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
}

/** The stored snapshot, or undefined when there is no file yet. Throws SnapshotLoadError when damaged. */
export async function readLastKnownGood(path: string): Promise<LastKnownGood | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  return decodeLastKnownGood(bytes);
}
