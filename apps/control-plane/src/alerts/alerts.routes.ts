// `GET /alerts`: every alert the caller may see, filtered and paginated (a policy's own list is
// policies/policy-alerts.routes.ts). Alerts are written only by the alert consumer.
import { invalid } from '../api-errors.js';
import { lookupWorkspace } from '../auth/visibility.js';
import { toList } from '../http/list.js';
import { defineRoute, type RouteContext, type RouteDefinition } from '../http/route.js';
import { type AlertFilters, alertToApi, listAlerts } from './alert-store.js';
import { alertListSchema, listAlertsQuery } from './alerts.schema.js';

export type FilterQuery = {
  page_size: number;
  current_page: number;
  workspace_id?: string | undefined;
  kind?: ('threshold' | 'exhausted' | 'rate_limited')[] | undefined;
  entity_type?: AlertFilters['entityType'];
  entity_id?: string | undefined;
  start_time?: number | undefined;
  end_time?: number | undefined;
  status?: 'active' | 'reset' | undefined;
};

/** The list filters of a validated alert query (`alerts.schema.ts`). */
export async function filtersOf(
  ctx: RouteContext<unknown, unknown, unknown>,
  query: FilterQuery,
): Promise<AlertFilters> {
  if (query.start_time !== undefined && query.end_time !== undefined && query.start_time >= query.end_time)
    throw invalid('query.start_time: must be before end_time', 'query.start_time');
  return {
    page_size: query.page_size,
    current_page: query.current_page,
    workspaceId: await lookupWorkspace(ctx.db, ctx.principal, query.workspace_id),
    kinds: query.kind,
    entityType: query.entity_type,
    entityId: query.entity_id?.toLowerCase(),
    startMs: query.start_time,
    endMs: query.end_time,
    active: query.status === undefined ? undefined : query.status === 'active',
  };
}

export const alertRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'get',
    path: '/alerts',
    tag: 'Alerts',
    summary: 'List usage-limit alerts',
    scope: 'usage_limits_policies.list',
    level: 'workspace',
    query: listAlertsQuery,
    response: alertListSchema,
    async handler(ctx) {
      const filters = await filtersOf(ctx as RouteContext<unknown, unknown, unknown>, ctx.query);
      const policyId = ctx.query.policy_id?.toLowerCase();
      const { rows, total } = await listAlerts(ctx.db, ctx.principal, { ...filters, policyId });
      return toList(rows.map(alertToApi), total);
    },
  }),
];
