// GET /logs (filters, cursor paging) and GET /logs/:id (bodies, log_format, feedback).
import { z } from 'zod';
import { defineRoute } from '../http/route.js';
import { visibilityOf } from './caller-context.js';
import { cursorPageFields, logFilterFields, toLogFilter } from './log-filter.schema.js';
import { logDetailSchema, logSchema, logToApi } from './logs.entity.js';
import { loggerOf } from './logs-api.context.js';

const listQuery = z
  .object({
    ...logFilterFields,
    ...cursorPageFields,
  })
  .strict();

export const listLogsRoute = defineRoute({
  method: 'get',
  path: '/logs',
  tag: 'Logs',
  summary: 'List request logs',
  scope: 'logs.list',
  level: 'workspace',
  query: listQuery,
  response: z.object({
    object: z.literal('list'),
    data: z.array(logSchema),
    total: z.number().int().optional(),
    next_cursor: z.string().nullable(),
  }),
  async handler(ctx) {
    const { caller } = await visibilityOf(ctx.db, ctx.principal);
    const response = await loggerOf(ctx).call('listLogs', {
      caller,
      filter: await toLogFilter(ctx.db, ctx.principal, ctx.query),
      pageSize: ctx.query.page_size,
      cursor: ctx.query.cursor ?? '',
      includeTotal: ctx.query.include_total === 'true',
      includeBodies: false,
    });
    return {
      object: 'list',
      data: response.logs.map((entry) => logToApi(entry)),
      ...(response.total === undefined ? {} : { total: response.total }),
      next_cursor: response.nextCursor === '' ? null : response.nextCursor,
    };
  },
});

export const getLogRoute = defineRoute({
  method: 'get',
  path: '/logs/:logId',
  tag: 'Logs',
  summary: 'Get a request log',
  scope: 'logs.view',
  level: 'workspace',
  params: z.object({ logId: z.uuid() }).strict(),
  response: logDetailSchema,
  async handler(ctx) {
    const { caller } = await visibilityOf(ctx.db, ctx.principal);
    const response = await loggerOf(ctx).call('getLog', { caller, id: ctx.params.logId.toLowerCase() });
    return logToApi(response.log!, { logFormat: response.logFormat });
  },
});
