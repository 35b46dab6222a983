// The SnapshotService is closed by default: a raw call without the token, or with a wrong one, gets
// UNAUTHENTICATED and no byte of the snapshot; it listens on loopback unless GRPC_HOST says otherwise;
// only SNAPSHOT_SERVICE_AUTH=disabled-i-understand-the-risk opens it.
import { connect } from 'node:net';
import { EntityKind, type GetRevisionResponse, type SnapshotChunk, SnapshotServiceClient } from '@aigw/proto';
import { SERVICE_AUTH_DISABLED } from '@aigw/runtime';
import { credentials, Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { describe, expect } from 'vitest';
import { SNAPSHOT_TOKEN, startControlPlane, test } from '../../test/harness.js';

function bearer(token: string | null): Metadata {
  const metadata = new Metadata();
  if (token !== null) metadata.set('authorization', `Bearer ${token}`);
  return metadata;
}

/** Everything a StreamSnapshot call yields before it ends or fails. */
function streamSnapshot(
  port: number,
  metadata: Metadata,
): Promise<{ chunks: SnapshotChunk[]; error: ServiceError | null }> {
  const client = new SnapshotServiceClient(`127.0.0.1:${port}`, credentials.createInsecure());
  const chunks: SnapshotChunk[] = [];
  return new Promise((resolve) => {
    const stream = client.streamSnapshot(
      { kinds: [], knownRevision: 0, maxBatchSize: 0, clientId: 'raw' },
      metadata,
    );
    stream.on('data', (chunk: SnapshotChunk) => chunks.push(chunk));
    stream.on('error', (error: ServiceError) => {
      client.close();
      resolve({ chunks, error });
    });
    stream.on('end', () => {
      client.close();
      resolve({ chunks, error: null });
    });
  });
}

function getRevision(port: number, metadata: Metadata): Promise<GetRevisionResponse> {
  const client = new SnapshotServiceClient(`127.0.0.1:${port}`, credentials.createInsecure());
  return new Promise<GetRevisionResponse>((resolve, reject) =>
    client.getRevision({ kinds: [] }, metadata, (err, res) => (err ? reject(err) : resolve(res))),
  ).finally(() => client.close());
}

/** Whether a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('SnapshotService authentication', () => {
  test('answers a raw call without the token, or with a wrong one, UNAUTHENTICATED and nothing else', async ({
    pg,
    nats,
  }) => {
    const { app } = startControlPlane({ pg, nats });
    await app.start();
    try {
      const port = app.ports.grpc;
      for (const token of [null, 'wrong-token-wrong-token-wrong-token-wrong', `${SNAPSHOT_TOKEN}x`]) {
        const refused = await streamSnapshot(port, bearer(token));
        expect(refused.error?.code, String(token)).toBe(status.UNAUTHENTICATED);
        expect(refused.chunks).toEqual([]);
        await expect(getRevision(port, bearer(token))).rejects.toMatchObject({
          code: status.UNAUTHENTICATED,
        });
      }
      // A token sent without the Bearer scheme is not the token either.
      const unprefixed = new Metadata();
      unprefixed.set('authorization', SNAPSHOT_TOKEN);
      expect((await streamSnapshot(port, unprefixed)).error?.code).toBe(status.UNAUTHENTICATED);

      const served = await streamSnapshot(port, bearer(SNAPSHOT_TOKEN));
      expect(served.error).toBeNull();
      expect(served.chunks.at(-1)?.chunk?.$case).toBe('trailer');
      const kinds = served.chunks.flatMap((c) =>
        c.chunk?.$case === 'batch' ? c.chunk.value.entities.map((e) => e.kind) : [],
      );
      expect(kinds).toContain(EntityKind.API_KEY);
      expect((await getRevision(port, bearer(SNAPSHOT_TOKEN))).revision).toBeGreaterThan(0);
    } finally {
      await app.stop();
    }
  });

  test('listens on loopback only unless GRPC_HOST is set', async ({ pg, nats }) => {
    // 127.0.0.2 is this machine too: a socket bound to 127.0.0.1 refuses it, one on 0.0.0.0 accepts it.
    const { app } = startControlPlane({ pg, nats });
    await app.start();
    try {
      expect(await accepts('127.0.0.1', app.ports.grpc)).toBe(true);
      expect(await accepts('127.0.0.2', app.ports.grpc)).toBe(false);
    } finally {
      await app.stop();
    }
    const { app: open } = startControlPlane({ pg, nats }, { GRPC_HOST: '0.0.0.0' });
    await open.start();
    try {
      expect(await accepts('127.0.0.2', open.ports.grpc)).toBe(true);
    } finally {
      await open.stop();
    }
  });

  test('answers without a token only when SNAPSHOT_SERVICE_AUTH says so in words', async ({ pg, nats }) => {
    const { app } = startControlPlane(
      { pg, nats },
      { SNAPSHOT_SERVICE_TOKEN: '', SNAPSHOT_SERVICE_AUTH: SERVICE_AUTH_DISABLED },
    );
    await app.start();
    try {
      const served = await streamSnapshot(app.ports.grpc, bearer(null));
      expect(served.error).toBeNull();
      expect(served.chunks.at(-1)?.chunk?.$case).toBe('trailer');
    } finally {
      await app.stop();
    }
  });
});
