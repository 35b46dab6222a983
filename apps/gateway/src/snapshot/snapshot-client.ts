// The gateway's SnapshotService client: one gRPC channel to the control plane, every call bounded by
// a deadline and carrying the service token. Stream problems become SnapshotLoadError.
import { type GetRevisionResponse, SnapshotServiceClient } from '@aigw/proto';
import { credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { type ReceivedSnapshot, receiveSnapshot, SnapshotLoadError } from './snapshot-frames.js';

export interface SnapshotClientOptions {
  /** `host:port` (CONTROL_PLANE_GRPC_URL). */
  readonly address: string;
  /** Sent as `authorization: Bearer <token>` (SNAPSHOT_SERVICE_TOKEN). */
  readonly token?: string | undefined;
  /** Deadline of one call: a whole snapshot stream or one revision probe. */
  readonly deadlineMs: number;
  /** Names this gateway in the control plane's logs (`gateway@<instance>`). */
  readonly clientId: string;
}

export interface SnapshotClient {
  /** Streams and verifies a snapshot; `knownRevision` lets the server answer "not modified". */
  fetch(knownRevision: number): Promise<ReceivedSnapshot>;
  /** The control plane's current revision, entity count and checksum. */
  revision(): Promise<GetRevisionResponse>;
  close(): void;
}

// A snapshot batch of large configs can pass grpc-js's 4 MiB default.
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

function describe(err: unknown): string {
  const e = err as Partial<ServiceError>;
  return typeof e.code === 'number' ? `gRPC ${e.code}: ${e.details ?? e.message}` : String(err);
}

export function createSnapshotClient(options: SnapshotClientOptions): SnapshotClient {
  const client = new SnapshotServiceClient(options.address, credentials.createInsecure(), {
    'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
  });
  const metadata = (): Metadata => {
    const m = new Metadata();
    if (options.token) m.set('authorization', `Bearer ${options.token}`);
    return m;
  };
  const deadline = () => ({ deadline: Date.now() + options.deadlineMs });
  // Closing a grpc-js channel leaves its calls running until their deadline: cancel them ourselves.
  const active = new Set<{ cancel(): void }>();

  return {
    async fetch(knownRevision) {
      const call = client.streamSnapshot(
        { kinds: [], knownRevision, maxBatchSize: 0, clientId: options.clientId },
        metadata(),
        deadline(),
      );
      // Cancelling a stream we stopped reading emits 'error' (CANCELLED): never an unhandled event.
      call.on('error', () => undefined);
      active.add(call);
      try {
        return await receiveSnapshot(call);
      } catch (err) {
        if (err instanceof SnapshotLoadError) throw err;
        throw new SnapshotLoadError('unavailable', describe(err), { cause: err });
      } finally {
        active.delete(call);
        call.cancel();
      }
    },
    revision() {
      return new Promise((resolve, reject) => {
        const call = client.getRevision({ kinds: [] }, metadata(), deadline(), (err, response) => {
          active.delete(call);
          if (err) reject(new SnapshotLoadError('unavailable', describe(err), { cause: err }));
          else resolve(response);
        });
        active.add(call);
      });
    },
    close() {
      for (const call of active) call.cancel();
      active.clear();
      client.close();
    },
  };
}
