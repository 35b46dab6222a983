// Log exports: POST /logs/exports queues one (the logger runs it in the background), GET lists and
// shows progress, GET /logs/exports/:id/download streams the JSONL or CSV file.
import { randomUUID } from 'node:crypto';
import { type DownloadExportResponse, ExportFormat, ExportStatus, type LogExport } from '@aigw/proto';
import { status as grpcStatus, type ServiceError, type StatusObject } from '@grpc/grpc-js';
import { z } from 'zod';
import { listSchema, pageQuery, toList } from '../http/list.js';
import { loggerError } from '../http/logger-client.js';
import { defineRoute } from '../http/route.js';
import { visibilityOf } from './caller-context.js';
import { logFilterSchema, toLogFilter } from './log-filter.schema.js';
import { actorToApi } from './logs.entity.js';
import { iso, loggerOf } from './logs-api.context.js';

const STATUS: Readonly<Record<number, string>> = {
  [ExportStatus.PENDING]: 'pending',
  [ExportStatus.RUNNING]: 'running',
  [ExportStatus.SUCCEEDED]: 'succeeded',
  [ExportStatus.FAILED]: 'failed',
};

export function exportToApi(e: LogExport) {
  return {
    id: e.id,
    object: 'log-export' as const,
    status: STATUS[e.status] ?? 'unknown',
    format: e.format === ExportFormat.CSV ? 'csv' : 'jsonl',
    fields: e.fields,
    total_rows: e.totalRows,
    exported_rows: e.exportedRows,
    progress: e.progress,
    size_bytes: e.sizeBytes,
    error: e.error === '' ? null : e.error,
    requested_by: actorToApi(e.requestedBy),
    created_at: iso(e.createdAtMs),
    started_at: iso(e.startedAtMs),
    completed_at: iso(e.completedAtMs),
  };
}

const exportSchema = z
  .object({
    id: z.uuid(),
    object: z.literal('log-export'),
    status: z.enum(['pending', 'running', 'succeeded', 'failed']),
    format: z.enum(['jsonl', 'csv']),
    fields: z.array(z.string()),
    total_rows: z.number().int(),
    exported_rows: z.number().int(),
    progress: z.number(),
    size_bytes: z.number().int(),
    error: z.string().nullable(),
  })
  .loose();

const exportId = z.object({ exportId: z.uuid() }).strict();

export const createExportRoute = defineRoute({
  method: 'post',
  path: '/logs/exports',
  tag: 'Logs Export',
  summary: 'Create a log export',
  scope: 'logs.export',
  level: 'workspace',
  body: z
    .object({
      format: z.enum(['jsonl', 'csv']).default('jsonl'),
      /** Fields of each row (docs/admin-api/logs.md); empty or absent: the default set. */
      fields: z
        .array(z.string().regex(/^[a-z_]{1,64}$/))
        .max(64)
        .default([]),
      filters: logFilterSchema.default({}),
    })
    .strict(),
  response: exportSchema,
  status: 201,
  audit: { action: 'logs.exports.create', resourceType: 'log_export' },
  async handler(ctx) {
    const logger = loggerOf(ctx);
    const { caller } = await visibilityOf(ctx.db, ctx.principal);
    const filter = await toLogFilter(ctx.db, ctx.principal, ctx.body.filters);
    const id = randomUUID();
    return ctx.mutate({ resourceId: id, workspaceId: ctx.principal.workspaceId }, async () => {
      const response = await logger.call('createExport', {
        caller,
        id,
        filter,
        fields: ctx.body.fields,
        format: ctx.body.format === 'csv' ? ExportFormat.CSV : ExportFormat.JSONL,
      });
      return exportToApi(response.export!);
    });
  },
});

export const listExportsRoute = defineRoute({
  method: 'get',
  path: '/logs/exports',
  tag: 'Logs Export',
  summary: 'List log exports',
  scope: 'logs.export',
  level: 'workspace',
  query: z.object(pageQuery).strict(),
  response: listSchema(exportSchema),
  async handler(ctx) {
    const { caller } = await visibilityOf(ctx.db, ctx.principal);
    const response = await loggerOf(ctx).call('listExports', {
      caller,
      pageSize: ctx.query.page_size,
      currentPage: ctx.query.current_page,
    });
    return toList(response.exports.map(exportToApi), response.total);
  },
});

export const getExportRoute = defineRoute({
  method: 'get',
  path: '/logs/exports/:exportId',
  tag: 'Logs Export',
  summary: 'Get a log export',
  scope: 'logs.export',
  level: 'workspace',
  params: exportId,
  response: exportSchema,
  async handler(ctx) {
    const { caller } = await visibilityOf(ctx.db, ctx.principal);
    const response = await loggerOf(ctx).call('getExport', { caller, id: ctx.params.exportId.toLowerCase() });
    return exportToApi(response.export!);
  },
});

export const downloadExportRoute = defineRoute({
  method: 'get',
  path: '/logs/exports/:exportId/download',
  tag: 'Logs Export',
  summary: 'Download a log export',
  scope: 'logs.export',
  level: 'workspace',
  params: exportId,
  response: z.string().describe('the file: application/x-ndjson (JSONL) or text/csv'),
  async handler(ctx) {
    const logger = loggerOf(ctx);
    const { caller } = await visibilityOf(ctx.db, ctx.principal);
    const res = ctx.req.res!;
    const stream = logger.download({ caller, id: ctx.params.exportId.toLowerCase() });
    res.on('close', () => stream.cancel());
    await new Promise<void>((resolve, reject) => {
      stream.on('data', (chunk: DownloadExportResponse) => {
        if (!res.headersSent) {
          res.status(200);
          res.setHeader('content-type', chunk.contentType || 'application/octet-stream');
          res.setHeader(
            'content-disposition',
            `attachment; filename="${chunk.filename.replace(/[^\w.-]/g, '_')}"`,
          );
        }
        if (!res.write(chunk.data)) {
          stream.pause();
          res.once('drain', () => stream.resume());
        }
      });
      // grpc-js may end the readable before it reports a failed status: only an OK status completes.
      stream.on('status', (st: StatusObject) => {
        if (st.code !== grpcStatus.OK) return; // the 'error' event handles it
        if (!res.headersSent) res.status(200).setHeader('content-type', 'application/octet-stream');
        res.end();
        resolve();
      });
      stream.on('error', (err: ServiceError) => {
        // Before the first byte the caller gets the error envelope; after it, only a cut stream.
        if (!res.headersSent) reject(loggerError(err, ctx.log, 'DownloadExport'));
        else {
          res.destroy(err);
          resolve();
        }
      });
    });
  },
});
