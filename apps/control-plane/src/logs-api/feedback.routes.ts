// POST /feedback and PUT /feedback/:id: a score on a trace, given with a workspace API key (spec 5.3:
// admin keys do not create or update feedback). Audited like every mutation.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { forbidden } from '../api-errors.js';
import { defineRoute, type RouteContext } from '../http/route.js';
import { visibilityOf } from './caller-context.js';
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
