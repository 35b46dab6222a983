// A real gRPC SnapshotService for the gateway's tests (the gateway must not import the control plane):
// it serves entities the test chooses, can cut or corrupt its stream, and can go down and come back.
import { randomUUID } from 'node:crypto';
import {
  ChangeEvent,
  changeSubject,
  type Entity,
  type SnapshotChunk,
  type SnapshotServiceServer,
  SnapshotServiceService,
  snapshotChecksum,
} from '@aigw/proto';
import { type RunningGrpcServer, startGrpcServer } from '@aigw/runtime';
import { status } from '@grpc/grpc-js';
import type { JetStreamClient } from '@nats-io/jetstream';

/** ok; truncate: no trailer; bad_checksum; schema_v2: a header of an unknown schema version. */
export type StreamMode = 'ok' | 'truncate' | 'bad_checksum' | 'schema_v2';

export interface TestControlPlane {
  /** `127.0.0.1:<port>`, stable across close() and restart(). */
  readonly address: string;
  mode: StreamMode;
  /** The outbox revision served (raise it alone to model audit rows). */
  revision: number;
  /** Runs after the header is sent and before the batches (the entities are already read). */
  duringStream: (() => Promise<void>) | undefined;
  readonly calls: { streams: number; notModified: number; revisions: number; authorization: string[] };
  /** Writes an entity the way a committed change would (revision + 1); returns the new revision. */
  commit(entity: Entity): number;
  /** Stops answering (control plane down). */
  close(): Promise<void>;
  restart(): Promise<void>;
}

export async function startTestControlPlane(
  entities: readonly Entity[],
  options: { token?: string; port?: number; batchSize?: number } = {},
): Promise<TestControlPlane> {
  const state = new Map<string, Entity>(entities.map((e) => [`${e.kind}:${e.id}`, e]));
  const authorised = (given: unknown) => options.token === undefined || given === `Bearer ${options.token}`;
  const implementation: SnapshotServiceServer = {
    streamSnapshot(call) {
      const auth = call.metadata.get('authorization')[0];
      cp.calls.streams++;
      cp.calls.authorization.push(String(auth));
      if (!authorised(auth)) {
        call.emit('error', { code: status.UNAUTHENTICATED, details: 'wrong token' });
        return;
      }
      const held = [...state.values()];
      const revision = cp.revision;
      const checksum = snapshotChecksum(held);
      const notModified = cp.mode === 'ok' && call.request.knownRevision === revision;
      if (notModified) cp.calls.notModified++;
      const write = (chunk: SnapshotChunk['chunk']) => call.write({ chunk });
      void (async () => {
        write({
          $case: 'header',
          value: {
            schemaVersion: cp.mode === 'schema_v2' ? 2 : 1,
            revision,
            entityCount: held.length,
            generatedAtMs: Date.now(),
            notModified,
            kinds: [],
          },
        });
        await cp.duringStream?.();
        let batchCount = 0;
        // Small batches by default, so that every test crosses batch boundaries.
        const size = options.batchSize ?? 2;
        for (let i = 0; !notModified && i < held.length; i += size) {
          write({ $case: 'batch', value: { entities: held.slice(i, i + size) } });
          batchCount++;
        }
        const sent = cp.mode === 'bad_checksum' ? snapshotChecksum(held.slice(1)) : checksum;
        if (cp.mode !== 'truncate')
          write({ $case: 'trailer', value: { entityCount: held.length, checksum: sent, batchCount } });
        call.end();
      })();
    },
    getRevision(call, callback) {
      cp.calls.revisions++;
      if (!authorised(call.metadata.get('authorization')[0])) {
        callback({ code: status.UNAUTHENTICATED, details: 'wrong token' });
        return;
      }
      const held = [...state.values()];
      callback(null, {
        revision: cp.revision,
        entityCount: held.length,
        checksum: snapshotChecksum(held),
        generatedAtMs: Date.now(),
      });
    },
  };
  const serve = (port: number) =>
    startGrpcServer([{ definition: SnapshotServiceService, implementation }], port, '127.0.0.1');
  let server: RunningGrpcServer | undefined = await serve(options.port ?? 0);
  const port = server.port;
  const cp: TestControlPlane = {
    address: `127.0.0.1:${port}`,
    mode: 'ok',
    revision: entities.length,
    duringStream: undefined,
    calls: { streams: 0, notModified: 0, revisions: 0, authorization: [] },
    commit(entity) {
      state.set(`${entity.kind}:${entity.id}`, entity);
      return ++cp.revision;
    },
    async close() {
      await server?.close(0);
      server = undefined;
    },
    async restart() {
      server ??= await serve(port);
    },
  };
  return cp;
}

/** Publishes a ChangeEvent the way the control plane's outbox relay does. */
export async function publishChange(
  js: JetStreamClient,
  namespace: string,
  entity: Entity,
  revision: number,
  schemaVersion = 1,
): Promise<void> {
  const event = ChangeEvent.fromPartial({
    schemaVersion,
    eventId: revision,
    revision,
    occurredAtMs: Date.now(),
    entity,
  });
  await js.publish(`${namespace}.${changeSubject(entity.kind)}`, ChangeEvent.encode(event).finish(), {
    msgID: randomUUID(),
  });
}

/** Commits on the test control plane and publishes the change, like a real admin API write. */
export async function commitAndPublish(
  cp: TestControlPlane,
  js: JetStreamClient,
  namespace: string,
  entity: Entity,
): Promise<number> {
  const revision = cp.commit(entity);
  await publishChange(js, namespace, entity, revision);
  return revision;
}
