// Reads a SnapshotService stream the way a gateway does, for tests.
import { type Entity, type SnapshotChunk, SnapshotServiceClient } from '@aigw/proto';
import { credentials, Metadata } from '@grpc/grpc-js';
import { SNAPSHOT_TOKEN } from './harness.js';

/** Sends the test control plane's token unless told another one, or none (null). */
export function readSnapshot(
  port: number,
  knownRevision = 0,
  token: string | null = SNAPSHOT_TOKEN,
): Promise<SnapshotChunk[]> {
  const client = new SnapshotServiceClient(`127.0.0.1:${port}`, credentials.createInsecure());
  return new Promise((resolve, reject) => {
    const chunks: SnapshotChunk[] = [];
    const metadata = new Metadata();
    if (token !== null) metadata.set('authorization', `Bearer ${token}`);
    const stream = client.streamSnapshot(
      { kinds: [], knownRevision, maxBatchSize: 0, clientId: 'test' },
      metadata,
    );
    stream.on('data', (chunk: SnapshotChunk) => chunks.push(chunk));
    stream.on('error', reject);
    stream.on('end', () => {
      client.close();
      resolve(chunks);
    });
  });
}

/** The entities of a complete snapshot stream (header, batches, trailer). */
export function snapshotEntities(chunks: readonly SnapshotChunk[]): Entity[] {
  return chunks.flatMap((c) => (c.chunk?.$case === 'batch' ? c.chunk.value.entities : []));
}
