// The generated grpc-js stubs work end to end over a real socket: SnapshotService streams a header,
// batches and a trailer the client can verify, and LogsService answers unary calls.
import {
  credentials,
  type handleUnaryCall,
  Metadata,
  Server,
  ServerCredentials,
  type ServiceError,
  status,
} from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Entity,
  EntityKind,
  type GetRevisionResponse,
  type ListLogsRequest,
  type ListLogsResponse,
  LogsServiceClient,
  type LogsServiceServer,
  LogsServiceService,
  SCHEMA_VERSION,
  type SnapshotChunk,
  SnapshotServiceClient,
  type SnapshotServiceServer,
  SnapshotServiceService,
  snapshotChecksum,
} from '../src/index.js';
import { apiKeyBody, entity, providerBody, requestEvent } from './fixtures.js';

const REVISION = 812;
const entities: Entity[] = [
  entity(EntityKind.PROVIDER, 'p-1', 3, { $case: 'provider', value: providerBody }),
  entity(EntityKind.API_KEY, 'k-2', 5, { $case: 'apiKey', value: apiKeyBody }),
  entity(EntityKind.API_KEY, 'k-1', 2, { $case: 'apiKey', value: apiKeyBody }),
  { ...entity(EntityKind.CONFIG, 'c-1', 9, undefined), tombstone: true },
  entity(EntityKind.API_KEY, 'k-3', 1, { $case: 'apiKey', value: { ...apiKeyBody, name: 'third' } }),
];

const snapshotService: SnapshotServiceServer = {
  streamSnapshot(call) {
    const { kinds, maxBatchSize } = call.request;
    const selected = entities.filter((e) => kinds.length === 0 || kinds.includes(e.kind));
    const batchSize = maxBatchSize || 500;
    call.write({
      chunk: {
        $case: 'header',
        value: {
          schemaVersion: SCHEMA_VERSION,
          revision: REVISION,
          entityCount: selected.length,
          generatedAtMs: 1_767_225_600_000,
          notModified: false,
          kinds,
        },
      },
    });
    let batchCount = 0;
    for (let i = 0; i < selected.length; i += batchSize) {
      call.write({ chunk: { $case: 'batch', value: { entities: selected.slice(i, i + batchSize) } } });
      batchCount += 1;
    }
    call.write({
      chunk: {
        $case: 'trailer',
        value: { entityCount: selected.length, checksum: snapshotChecksum(selected), batchCount },
      },
    });
    call.end();
  },
  getRevision(_call, callback) {
    callback(null, {
      revision: REVISION,
      entityCount: entities.length,
      checksum: snapshotChecksum(entities),
      generatedAtMs: 1_767_225_600_000,
    });
  },
};

const unimplemented: handleUnaryCall<unknown, never> = (_call, callback) =>
  callback({ code: status.UNIMPLEMENTED, details: 'not part of this test' });

const logsService: LogsServiceServer = {
  listLogs(call, callback) {
    const { caller, filter, pageSize } = call.request;
    if (!caller?.allWorkspaces && caller?.workspaceIds.length === 0) {
      callback(null, { logs: [], nextCursor: '' });
      return;
    }
    const visible = filter?.models.includes(requestEvent.modelServed) ? [requestEvent] : [];
    callback(null, {
      logs: visible
        .slice(0, pageSize)
        .map((request) => ({ request, ingestedAtMs: request.completedAtMs + 5, feedback: [] })),
      nextCursor: `after:${call.metadata.get('x-request-id')[0]}`,
      total: visible.length,
    });
  },
  getLog(call, callback) {
    callback({ code: status.NOT_FOUND, details: `log ${call.request.id} not found` });
  },
  getGroups: unimplemented,
  getGraph: unimplemented,
  getSummary: unimplemented,
  listAuditEvents: unimplemented,
  createFeedback: unimplemented,
  updateFeedback: unimplemented,
  listFeedback: unimplemented,
  createExport: unimplemented,
  getExport: unimplemented,
  listExports: unimplemented,
  getUsage: unimplemented,
  downloadExport(call) {
    call.destroy(Object.assign(new Error('not part of this test'), { code: status.UNIMPLEMENTED }));
  },
};

let server: Server;
let snapshotClient: SnapshotServiceClient;
let logsClient: LogsServiceClient;

beforeAll(async () => {
  server = new Server();
  server.addService(SnapshotServiceService, snapshotService);
  server.addService(LogsServiceService, logsService);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  snapshotClient = new SnapshotServiceClient(`127.0.0.1:${port}`, credentials.createInsecure());
  logsClient = new LogsServiceClient(`127.0.0.1:${port}`, credentials.createInsecure());
});

afterAll(() => {
  snapshotClient?.close();
  logsClient?.close();
  server?.forceShutdown();
});

async function collect(
  request: Parameters<SnapshotServiceClient['streamSnapshot']>[0],
): Promise<SnapshotChunk[]> {
  const chunks: SnapshotChunk[] = [];
  for await (const chunk of snapshotClient.streamSnapshot(request)) chunks.push(chunk as SnapshotChunk);
  return chunks;
}

describe('SnapshotService over grpc-js', () => {
  it('streams a header, batches and a trailer whose checksum matches the received entities', async () => {
    const chunks = await collect({ kinds: [], knownRevision: 0, maxBatchSize: 2, clientId: 'gateway@test' });
    expect(chunks.map((c) => c.chunk?.$case)).toEqual(['header', 'batch', 'batch', 'batch', 'trailer']);

    const header = chunks[0]?.chunk;
    expect(header?.$case === 'header' && header.value).toMatchObject({
      schemaVersion: SCHEMA_VERSION,
      revision: REVISION,
      entityCount: 5,
    });
    const received = chunks.flatMap((c) => (c.chunk?.$case === 'batch' ? c.chunk.value.entities : []));
    expect(received).toEqual(entities);
    const trailer = chunks[4]?.chunk;
    expect(trailer?.$case === 'trailer' && trailer.value).toEqual({
      entityCount: 5,
      checksum: snapshotChecksum(received),
      batchCount: 3,
    });
    const tombstone = received.find((e) => e.kind === EntityKind.CONFIG);
    expect(tombstone).toMatchObject({ tombstone: true, version: 9 });
    expect(tombstone?.body).toBeUndefined();
  });

  it('sends only the requested kinds', async () => {
    const chunks = await collect({
      kinds: [EntityKind.PROVIDER],
      knownRevision: 0,
      maxBatchSize: 0,
      clientId: '',
    });
    const received = chunks.flatMap((c) => (c.chunk?.$case === 'batch' ? c.chunk.value.entities : []));
    expect(received.map((e) => e.id)).toEqual(['p-1']);
    const header = chunks[0]?.chunk;
    expect(header?.$case === 'header' && header.value.kinds).toEqual([EntityKind.PROVIDER]);
  });

  it('answers GetRevision with the same checksum a full snapshot carries', async () => {
    const response = await new Promise<GetRevisionResponse>((resolve, reject) =>
      snapshotClient.getRevision({ kinds: [] }, (err, res) => (err ? reject(err) : resolve(res))),
    );
    expect(response).toEqual({
      revision: REVISION,
      entityCount: 5,
      checksum: snapshotChecksum(entities),
      generatedAtMs: 1_767_225_600_000,
    });
  });
});

describe('LogsService over grpc-js', () => {
  it('answers ListLogs with the full stored request event', async () => {
    const request: ListLogsRequest = {
      caller: {
        organisationId: requestEvent.organisationId,
        allWorkspaces: false,
        workspaceIds: [requestEvent.workspaceId],
        restrictToApiKeys: true,
        restrictToApiKeyIds: [requestEvent.apiKeyId],
      },
      filter: {
        fromMs: 0,
        toMs: 0,
        workspaceIds: [],
        apiKeyIds: [],
        providerSlugs: [],
        aiServices: [],
        models: [requestEvent.modelServed],
        statusCodes: [],
        traceId: '',
        metadata: [{ key: '_user', value: 'ada' }],
        costMicros: { min: 0 },
        configIds: [],
        promptIds: [],
        cacheStatuses: [],
        userIds: [],
      },
      pageSize: 50,
      cursor: '',
      includeTotal: true,
      includeBodies: true,
    };
    const metadata = new Metadata();
    metadata.set('x-request-id', 'req-1');
    const response = await new Promise<ListLogsResponse>((resolve, reject) =>
      logsClient.listLogs(request, metadata, (err, res) => (err ? reject(err) : resolve(res))),
    );
    expect(response.logs).toEqual([
      { request: requestEvent, ingestedAtMs: requestEvent.completedAtMs + 5, feedback: [] },
    ]);
    expect(response.nextCursor).toBe('after:req-1');
    expect(response.total).toBe(1);
  });

  it('carries gRPC status codes to the client', async () => {
    const error = await new Promise<ServiceError>((resolve, reject) =>
      logsClient.getLog({ id: 'missing' }, (err) =>
        err ? resolve(err) : reject(new Error('expected an error')),
      ),
    );
    expect(error.code).toBe(status.NOT_FOUND);
    expect(error.details).toBe('log missing not found');
  });
});
