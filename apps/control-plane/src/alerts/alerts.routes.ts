// Alert routes: every alert the caller may see (`GET /alerts`) and a usage-limits policy's own
// (`GET /policies/usage-limits/{id}/alerts`). Alerts are written only by the alert consumer.
import { invalid } from '../api-errors.js';
import { lookupWorkspace } from '../auth/visibility.js';
import { toList } from '../http/list.js';
import { defineRoute, type RouteContext, type RouteDefinition } from '../http/route.js';
import { findPolicy } from '../policies/policies.repository.js';
import { type AlertFilters, alertToApi, listAlerts } from './alert-store.js';
import { alertListSchema, listAlertsQuery, policyAlertsParams, policyAlertsQuery } from './alerts.schema.js';

type FilterQuery = {
  page_size: number;
  current_page: number;
  workspace_id?: string | undefined;
  kind?: ('threshold' | 'exhausted')[] | undefined;
  entity_type?: AlertFilters['entityType'];
  entity_id?: string | undefined;
  start_time?: number | undefined;
  end_time?: number | undefined;
  status?: 'active' | 'reset' | undefined;
};

async function filtersOf(
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
  defineRoute({
    method: 'get',
    path: '/policies/usage-limits/:usageLimitsPolicyId/alerts',
    tag: 'Usage limits policies',
    summary: 'List the alerts of a usage limits policy',
    scope: 'usage_limits_policies.read',
    level: 'workspace',
    params: policyAlertsParams,
    query: policyAlertsQuery,
    response: alertListSchema,
    async handler(ctx) {
      const policy = await findPolicy(ctx.db, ctx.principal, 'usage_limits', ctx.params.usageLimitsPolicyId);
      const filters = await filtersOf(ctx as RouteContext<unknown, unknown, unknown>, ctx.query);
      const { rows, total } = await listAlerts(ctx.db, ctx.principal, { ...filters, policyId: policy.id });
      return toList(rows.map(alertToApi), total);
    },
  }),
];
