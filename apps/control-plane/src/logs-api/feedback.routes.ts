// POST /feedback and PUT /feedback/:id: a score on a trace, given by a workspace-bound caller (spec
// 5.3: admin keys do not create or update feedback) on a trace it may see in its workspace (404
// otherwise, as for any resource of another workspace). GET /feedback lists what the caller may see.
// Mutations are audited like every other.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { forbidden } from '../api-errors.js';
import { lookupWorkspace } from '../auth/visibility.js';
import { idOrSlug } from '../http/list.js';
import { defineRoute, type RouteContext } from '../http/route.js';
import { visibilityOf } from './caller-context.js';
import { cursorPageFields, logFilterFields } from './log-filter.schema.js';
import { feedbackSchema, feedbackToApi } from './logs.entity.js';
import { loggerOf } from './logs-api.context.js';

const metadata = z
  .record(z.string().min(1).max(128), z.union([z.string().max(1024), z.number(), z.boolean()]))
  .refine((m) => Object.keys(m).length <= 64, 'at most 64 keys')
  .transform((m) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, String(v)])));
const value = z.number().int().min(-10).max(10);
const weight = z.number().min(0).max(1);

function workspaceKeyOnly(ctx: RouteContext<unknown, unknown, unknown>): string {
  if (ctx.principal.workspaceId === null)
    throw forbidden('feedback is created and updated with a workspace API key (spec 5.3), not an admin key');
  return ctx.principal.workspaceId;
}

export const createFeedbackRoute = defineRoute({
  method: 'post',
  path: '/feedback',
  tag: 'Feedback',
  summary: 'Create feedback',
  scope: 'feedback.create',
  level: 'workspace',
  body: z
    .object({
      trace_id: z.string().trim().min(1).max(255),
      value,
      weight: weight.default(1),
      metadata: metadata.default({}),
    })
    .strict(),
  response: feedbackSchema,
  status: 201,
  audit: { action: 'feedback.create', resourceType: 'feedback' },
  async handler(ctx) {
    const workspaceId = workspaceKeyOnly(ctx);
    const logger = loggerOf(ctx);
    const { caller } = await visibilityOf(ctx.db, ctx.principal);
    const id = randomUUID();
    return ctx.mutate({ resourceId: id, workspaceId }, async () => {
      const { feedback } = await logger.call('createFeedback', {
        caller,
        id,
        workspaceId,
        traceId: ctx.body.trace_id,
        value: ctx.body.value,
        weight: ctx.body.weight,
        metadata: ctx.body.metadata,
      });
      return feedbackToApi(feedback!);
    });
  },
});

export const updateFeedbackRoute = defineRoute({
  method: 'put',
  path: '/feedback/:feedbackId',
  tag: 'Feedback',
  summary: 'Update feedback',
  scope: 'feedback.update',
  level: 'workspace',
  params: z.object({ feedbackId: z.uuid() }).strict(),
  body: z
    .object({ value: value.optional(), weight: weight.optional(), metadata: metadata.optional() })
    .strict()
    .refine(
      (b) => b.value !== undefined || b.weight !== undefined || b.metadata !== undefined,
      'nothing to update',
    ),
  response: feedbackSchema,
  audit: { action: 'feedback.update', resourceType: 'feedback' },
  entity: { exempt: 'feedback is stored by the logger, not in a versioned row' },
  async handler(ctx) {
    const workspaceId = workspaceKeyOnly(ctx);
    const logger = loggerOf(ctx);
    const { caller } = await visibilityOf(ctx.db, ctx.principal);
    const id = ctx.params.feedbackId.toLowerCase();
    return ctx.mutate({ resourceId: id, workspaceId }, async () => {
      const { feedback } = await logger.call('updateFeedback', {
        caller,
        id,
        ...(ctx.body.value === undefined ? {} : { value: ctx.body.value }),
        ...(ctx.body.weight === undefined ? {} : { weight: ctx.body.weight }),
        metadata: ctx.body.metadata ?? {},
        replaceMetadata: ctx.body.metadata !== undefined,
      });
      return feedbackToApi(feedback!);
    });
  },
});

const traceIds = z
  .union([z.string().max(8192), z.array(z.string().max(8192)).max(100)])
  .transform((v) =>
    (Array.isArray(v) ? v : [v])
      .flatMap((t) => t.split(','))
      .map((t) => t.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.string().max(255)).min(1).max(100));
const queryValue = z.coerce.number().int().min(-10).max(10);
const queryWeight = z.coerce.number().min(0).max(1);

export const listFeedbackRoute = defineRoute({
  method: 'get',
  path: '/feedback',
  tag: 'Feedback',
  summary: 'List feedback',
  scope: 'feedback.list',
  level: 'workspace',
  query: z
    .object({
      trace_id: traceIds.optional(),
      workspace_id: idOrSlug.optional(),
      start_time: logFilterFields.start_time,
      end_time: logFilterFields.end_time,
      min_value: queryValue.optional(),
      max_value: queryValue.optional(),
      min_weight: queryWeight.optional(),
      max_weight: queryWeight.optional(),
      ...cursorPageFields,
    })
    .strict(),
  response: z.object({
    object: z.literal('list'),
    data: z.array(feedbackSchema),
    total: z.number().int().optional(),
    next_cursor: z.string().nullable(),
  }),
  async handler(ctx) {
    const { caller } = await visibilityOf(ctx.db, ctx.principal);
    const q = ctx.query;
    // A workspace the caller may not see is 404, as for every other list filter.
    const workspace = await lookupWorkspace(ctx.db, ctx.principal, q.workspace_id);
    const response = await loggerOf(ctx).call('listFeedback', {
      caller,
      traceIds: q.trace_id ?? [],
      workspaceIds: workspace ? [workspace] : [],
      fromMs: q.start_time ?? 0,
      toMs: q.end_time ?? 0,
      value: {
        ...(q.min_value === undefined ? {} : { min: q.min_value }),
        ...(q.max_value === undefined ? {} : { max: q.max_value }),
      },
      ...(q.min_weight === undefined ? {} : { minWeight: q.min_weight }),
      ...(q.max_weight === undefined ? {} : { maxWeight: q.max_weight }),
      pageSize: q.page_size,
      cursor: q.cursor ?? '',
      includeTotal: q.include_total === 'true',
    });
    return {
      object: 'list',
      data: response.feedback.map(feedbackToApi),
      ...(response.total === undefined ? {} : { total: response.total }),
      next_cursor: response.nextCursor === '' ? null : response.nextCursor,
    };
  },
});
