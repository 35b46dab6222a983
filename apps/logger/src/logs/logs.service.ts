// gRPC LogsService: each method validates and answers from src/query/. Query errors carry their gRPC
// status; anything else is INTERNAL with the cause in the logger's log only. Every call must carry
// `authorization: Bearer <LOGS_SERVICE_TOKEN>`: the CallerContext in a request decides which
// organisation's data is read, so it is believed only from a peer holding the token (the control
// plane, which derives it from the API key or JWT it authenticated). There is no way to turn it off.
import { once } from 'node:events';
import {
  type DownloadExportRequest,
  type DownloadExportResponse,
  type LogsServiceServer,
  LogsServiceService,
} from '@aigw/proto';
import { bearerTokenCheck, type GrpcService, type Logger } from '@aigw/runtime';
import {
  type Metadata,
  type ServerUnaryCall,
  type ServerWritableStream,
  type sendUnaryData,
  status,
} from '@grpc/grpc-js';
import type { Kysely } from 'kysely';
import type { LogsDatabase } from '../db/schema.js';
import { listAuditEvents } from '../query/audit.query.js';
import type { ExportRunner } from '../query/exports/export-runner.js';
import {
  createExport,
  downloadExport,
  getExport,
  listExports,
  toExport,
} from '../query/exports/exports.store.js';
import { listFeedback } from '../query/feedback.query.js';
import { createFeedback, updateFeedback } from '../query/feedback.store.js';
import { getGraph } from '../query/graph.query.js';
import { getGroups } from '../query/groups.query.js';
import { getLog, listLogs } from '../query/logs.query.js';
import { QueryError } from '../query/query-error.js';
import { getSummary } from '../query/summary.query.js';
import { getUsage } from '../query/usage.query.js';

export interface LogsServiceDeps {
  readonly db: Kysely<LogsDatabase>;
  readonly log: Logger;
  readonly exportsEnabled: boolean;
  readonly exports: ExportRunner;
  /** Callers must send `authorization: Bearer <token>` (LOGS_SERVICE_TOKEN). */
  readonly token: string;
}

type Status = { code: status; details: string };

export function logsService(deps: LogsServiceDeps): GrpcService {
  const log = deps.log.child({ component: 'logs-service' });
  const authorised: (metadata: Metadata) => boolean = bearerTokenCheck(deps.token);
  const toStatus = (method: string, err: unknown): Status => {
    if (err instanceof QueryError) return { code: err.code, details: err.message };
    log.error({ err, method }, 'LogsService call failed');
    return { code: status.INTERNAL, details: `LogsService.${method} failed` };
  };
  const unary =
    <Req, Res>(method: string, fn: (request: Req) => Promise<Res>) =>
    (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => {
      if (!authorised(call.metadata)) {
        callback({ code: status.UNAUTHENTICATED, details: 'missing or wrong logs service token' });
        return;
      }
      fn(call.request).then(
        (response) => callback(null, response),
        (err: unknown) => callback(toStatus(method, err)),
      );
    };
  const db = deps.db;

  const implementation: LogsServiceServer = {
    listLogs: unary('ListLogs', (r) => listLogs(db, r)),
    getLog: unary('GetLog', (r) => getLog(db, r)),
    getGroups: unary('GetGroups', (r) => getGroups(db, r)),
    getGraph: unary('GetGraph', (r) => getGraph(db, r)),
    getSummary: unary('GetSummary', (r) => getSummary(db, r)),
    listAuditEvents: unary('ListAuditEvents', (r) => listAuditEvents(db, r)),
    createFeedback: unary('CreateFeedback', async (r) => ({ feedback: await createFeedback(db, r) })),
    updateFeedback: unary('UpdateFeedback', async (r) => ({ feedback: await updateFeedback(db, r) })),
    listFeedback: unary('ListFeedback', (r) => listFeedback(db, r)),
    createExport: unary('CreateExport', async (r) => {
      const created = await createExport(db, r, { enabled: deps.exportsEnabled });
      deps.exports.wake();
      return { export: created };
    }),
    getExport: unary('GetExport', async (r) => ({ export: toExport(await getExport(db, r.caller, r.id)) })),
    listExports: unary('ListExports', (r) => listExports(db, r.caller, r)),
    getUsage: unary('GetUsage', (r) => getUsage(db, r)),
    downloadExport(call: ServerWritableStream<DownloadExportRequest, DownloadExportResponse>) {
      if (!authorised(call.metadata)) {
        // grpc-js sends a server stream's status from an emitted error.
        call.emit('error', { code: status.UNAUTHENTICATED, details: 'missing or wrong logs service token' });
        return;
      }
      void (async () => {
        try {
          for await (const chunk of downloadExport(db, call.request.caller, call.request.id)) {
            if (call.cancelled) return;
            if (!call.write(chunk)) await once(call, 'drain');
          }
          call.end();
        } catch (err) {
          call.emit('error', toStatus('DownloadExport', err));
        }
      })();
    },
  };
  return { definition: LogsServiceService, implementation };
}
