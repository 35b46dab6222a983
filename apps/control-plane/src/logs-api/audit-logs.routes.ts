// GET /audit-logs: audit records newest first, filtered by time, user, key, action, resource,
// workspace, outcome, status code and IP, with cursor paging. `scope=platform` lists the records
// that belong to no organisation instead, for the deployment's operator (auth/platform-scope.ts).

import { isIP } from 'node:net';
import { AuditOutcome } from '@aigw/proto';
import { z } from 'zod';
import { requirePlatformOperator } from '../auth/platform-scope.js';
import { lookupWorkspace } from '../auth/visibility.js';
import { idOrSlug } from '../http/list.js';
import { defineRoute } from '../http/route.js';
import { visibilityOf } from './caller-context.js';
import { cursorPageFields, logFilterFields } from './log-filter.schema.js';
import { auditSchema, auditToApi } from './logs.entity.js';
import { loggerOf } from './logs-api.context.js';

const csv = <T extends z.ZodType<unknown, string>>(item: T) =>
  z
    .string()
    .max(4096)
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(z.array(item).min(1).max(100));

const query = z
  .object({
    start_time: logFilterFields.start_time,
    end_time: logFilterFields.end_time,
    workspace_id: idOrSlug.optional(),
    user_id: csv(z.string().min(1).max(255)).optional(),
    api_key_id: csv(z.uuid()).optional(),
    action: csv(z.string().regex(/^[\w.-]{1,128}$/, 'must be an action like api_keys.create')).optional(),
    resource_type: z
      .string()
      .regex(/^[\w.-]{1,64}$/)
      .optional(),
    resource_id: z.string().min(1).max(255).optional(),
    status: z.enum(['success', 'failure']).optional(),
    status_code: csv(
      z
        .string()
        .regex(/^\d{3}$/, 'must be a 3-digit HTTP status')
        .transform(Number),
    ).optional(),
    ip: csv(z.string().refine((v) => isIP(v) !== 0, 'must be an IP address')).optional(),
    /** `organisation` (the caller's records) or `platform` (records of no organisation). */
    scope: z.enum(['organisation', 'platform']).default('organisation'),
    ...cursorPageFields,
  })
  .strict();

export const listAuditLogsRoute = defineRoute({
  method: 'get',
  path: '/audit-logs',
  tag: 'Audit Logs',
  summary: 'List audit logs',
  scope: 'audit_logs.list',
  level: 'workspace',
  query,
  response: z.object({
    object: z.literal('list'),
    data: z.array(auditSchema),
    total: z.number().int().optional(),
    next_cursor: z.string().nullable(),
  }),
  async handler(ctx) {
    const q = ctx.query;
    const platform = q.scope === 'platform';
    if (platform) await requirePlatformOperator(ctx.db, ctx.principal);
    const { caller } = await visibilityOf(ctx.db, ctx.principal);
    // Records of no organisation have no workspace of the caller's to narrow to.
    const workspace = platform
      ? q.workspace_id
      : await lookupWorkspace(ctx.db, ctx.principal, q.workspace_id);
    const response = await loggerOf(ctx).call('listAuditEvents', {
      caller,
      fromMs: q.start_time ?? 0,
      toMs: q.end_time ?? 0,
      workspaceIds: workspace ? [workspace] : [],
      userIds: q.user_id ?? [],
      apiKeyIds: (q.api_key_id ?? []).map((id) => id.toLowerCase()),
      actions: q.action ?? [],
      resourceType: q.resource_type ?? '',
      resourceId: q.resource_id ?? '',
      outcome:
        q.status === 'success'
          ? AuditOutcome.SUCCESS
          : q.status === 'failure'
            ? AuditOutcome.FAILURE
            : AuditOutcome.UNSPECIFIED,
      statusCodes: q.status_code ?? [],
      ips: q.ip ?? [],
      pageSize: q.page_size,
      cursor: q.cursor ?? '',
      includeTotal: q.include_total === 'true',
      unattributed: platform,
    });
    return {
      object: 'list',
      data: response.events.map(auditToApi),
      ...(response.total === undefined ? {} : { total: response.total }),
      next_cursor: response.nextCursor === '' ? null : response.nextCursor,
    };
  },
});
