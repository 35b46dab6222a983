// gRPC SnapshotService: streams the entity snapshot as header, batches, trailer, to callers holding
// the service token (the snapshot carries every key hash and sealed credential).

import {
  type Entity,
  type GetRevisionRequest,
  type GetRevisionResponse,
  SCHEMA_VERSION,
  type SnapshotChunk,
  type SnapshotRequest,
  type SnapshotServiceServer,
  SnapshotServiceService,
  snapshotChecksum,
} from '@aigw/proto';
import { bearerTokenCheck, type GrpcService, type Logger } from '@aigw/runtime';
import {
  type Metadata,
  type ServerUnaryCall,
  type ServerWritableStream,
  type sendUnaryData,
  status,
} from '@grpc/grpc-js';
import type { SnapshotRepository } from './snapshot.repository.js';

const DEFAULT_BATCH = 500;
const MAX_BATCH = 5_000;

export interface SnapshotServiceDeps {
  readonly repository: SnapshotRepository;
  readonly log: Logger;
  /**
   * Callers must send `authorization: Bearer <token>` metadata (SNAPSHOT_SERVICE_TOKEN). null only when
   * SNAPSHOT_SERVICE_AUTH turned the check off in words: there is no default that leaves it open.
   */
  readonly token: string | null;
}

export function snapshotService(deps: SnapshotServiceDeps): GrpcService {
  const log = deps.log.child({ component: 'snapshot' });
  const authorised: (metadata: Metadata) => boolean =
    deps.token === null ? () => true : bearerTokenCheck(deps.token);

  const implementation: SnapshotServiceServer = {
    streamSnapshot(call: ServerWritableStream<SnapshotRequest, SnapshotChunk>) {
      if (!authorised(call.metadata)) {
        // grpc-js sends a server stream's status from an emitted error (destroy() leaves it open).
        call.emit('error', {
          code: status.UNAUTHENTICATED,
          details: 'missing or wrong snapshot service token',
        });
        return;
      }
      void (async () => {
        const request = call.request;
        const state = await deps.repository.read(request.kinds);
        const checksum = snapshotChecksum(state.entities);
        const notModified = request.knownRevision !== 0 && request.knownRevision === state.revision;
        const size = Math.min(request.maxBatchSize || DEFAULT_BATCH, MAX_BATCH);
        call.write({
          chunk: {
            $case: 'header',
            value: {
              schemaVersion: SCHEMA_VERSION,
              revision: state.revision,
              entityCount: state.entities.length,
              generatedAtMs: Date.now(),
              notModified,
              kinds: request.kinds,
            },
          },
        });
        let batchCount = 0;
        if (!notModified) {
          for (let i = 0; i < state.entities.length && !call.cancelled; i += size) {
            const entities: Entity[] = state.entities.slice(i, i + size);
            call.write({ chunk: { $case: 'batch', value: { entities } } });
            batchCount++;
          }
        }
        call.write({
          chunk: { $case: 'trailer', value: { entityCount: state.entities.length, checksum, batchCount } },
        });
        call.end();
        log.debug(
          { client: request.clientId, revision: state.revision, entities: state.entities.length },
          'snapshot sent',
        );
      })().catch((err: unknown) => {
        log.error({ err }, 'snapshot failed');
        call.emit('error', { code: status.UNAVAILABLE, details: 'snapshot unavailable' });
      });
    },
    getRevision(
      call: ServerUnaryCall<GetRevisionRequest, GetRevisionResponse>,
      callback: sendUnaryData<GetRevisionResponse>,
    ) {
      if (!authorised(call.metadata)) {
        callback({ code: status.UNAUTHENTICATED, details: 'missing or wrong snapshot service token' });
        return;
      }
      deps.repository.read(call.request.kinds).then(
        (state) =>
          callback(null, {
            revision: state.revision,
            entityCount: state.entities.length,
            checksum: snapshotChecksum(state.entities),
            generatedAtMs: Date.now(),
          }),
        (err: unknown) => {
          log.error({ err }, 'revision check failed');
          callback({ code: status.UNAVAILABLE, details: 'revision unavailable' });
        },
      );
    },
  };
  return { definition: SnapshotServiceService, implementation };
}
