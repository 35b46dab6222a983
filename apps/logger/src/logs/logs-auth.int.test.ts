// LogsService believes the caller identity in a request only from a peer holding LOGS_SERVICE_TOKEN:
// the raw ListLogs naming another organisation, bodies included, gets UNAUTHENTICATED without
// the token or with a wrong one, and so does every other method.
import {
  type ListLogsRequest,
  type ListLogsResponse,
  LogsServiceClient,
  LogsServiceService,
} from '@aigw/proto';
import { test as base } from '@aigw/testkit';
import { Client, credentials, Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { describe, expect } from 'vitest';
import {
  callerOf,
  filterOf,
  makeEvents,
  ORG_B,
  openLogsDatabase,
  SERVICE_TOKEN,
  startService,
  storeEvents,
  type TestService,
} from '../query/query.test-support.js';

const test = base.extend<{ svc: TestService }>({
  svc: [
    async ({ pg }, use) => {
      const database = await openLogsDatabase(pg);
      await storeEvents(database.db, makeEvents(200, 5));
      const svc = await startService(database.db);
      try {
        await use(svc);
      } finally {
        await svc.close();
        await database.close();
      }
    },
    { scope: 'file' },
  ],
});

/** The request: organisation B's logs, every workspace, with bodies. */
const STEAL: ListLogsRequest = {
  caller: callerOf({ organisationId: ORG_B, allWorkspaces: true }),
  filter: filterOf(),
  pageSize: 50,
  cursor: '',
  includeTotal: true,
  includeBodies: true,
};

function withAuthorization(value: string | null): Metadata {
  const metadata = new Metadata();
  if (value !== null) metadata.set('authorization', value);
  return metadata;
}

function listLogs(svc: TestService, metadata: Metadata): Promise<ListLogsResponse> {
  const client = new LogsServiceClient(svc.address, credentials.createInsecure());
  return new Promise<ListLogsResponse>((resolve, reject) =>
    client.listLogs(STEAL, metadata, (err, res) => (err ? reject(err) : resolve(res))),
  ).finally(() => client.close());
}

/** Calls `method` with an empty request (valid for every message type) and the given metadata. */
function callRaw(address: string, path: string, responseStream: boolean, metadata: Metadata) {
  const client = new Client(address, credentials.createInsecure());
  const serialize = () => Buffer.alloc(0);
  const deserialize = (bytes: Buffer) => bytes;
  return new Promise<ServiceError | null>((resolve) => {
    if (responseStream) {
      const stream = client.makeServerStreamRequest(path, serialize, deserialize, {}, metadata);
      stream.on('data', () => undefined);
      stream.on('error', (err: ServiceError) => resolve(err));
      stream.on('end', () => resolve(null));
    } else {
      client.makeUnaryRequest(path, serialize, deserialize, {}, metadata, (err) => resolve(err));
    }
  }).finally(() => client.close());
}

describe('LogsService authentication', () => {
  test('answers a raw ListLogs for another organisation, bodies included, only to the token holder', async ({
    svc,
  }) => {
    for (const authorization of [
      null,
      'Bearer ',
      'Bearer wrong-token-wrong-token-wrong-token-wrong',
      `Bearer ${SERVICE_TOKEN}x`,
      SERVICE_TOKEN,
    ]) {
      await expect(
        listLogs(svc, withAuthorization(authorization)),
        String(authorization),
      ).rejects.toMatchObject({ code: status.UNAUTHENTICATED });
    }
    // The same request from the token holder (the control plane, which derived the caller itself) is
    // answered: what the refusals above protect.
    const answered = await listLogs(svc, withAuthorization(`Bearer ${SERVICE_TOKEN}`));
    expect(answered.logs.length).toBeGreaterThan(0);
    expect(answered.logs.every((log) => log.request?.organisationId === ORG_B)).toBe(true);
    expect(answered.logs.every((log) => (log.request?.requestBody?.data.length ?? 0) > 0)).toBe(true);
  });

  test('refuses every method without the token, and with a wrong one', async ({ svc }) => {
    const methods = Object.entries(LogsServiceService);
    expect(methods.length).toBeGreaterThanOrEqual(13);
    for (const [name, method] of methods) {
      for (const authorization of [null, 'Bearer wrong-token-wrong-token-wrong-token-wrong']) {
        const error = await callRaw(
          svc.address,
          method.path,
          method.responseStream,
          withAuthorization(authorization),
        );
        expect({ name, authorization, code: error?.code }).toEqual({
          name,
          authorization,
          code: status.UNAUTHENTICATED,
        });
      }
    }
  });
});
