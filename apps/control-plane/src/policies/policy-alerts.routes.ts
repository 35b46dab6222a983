// `GET /policies/usage-limits/{id}/alerts`: the alerts of one usage-limits policy the caller may
// see, with the filters of `GET /alerts` (docs/admin-api/alerts.md).
import { alertToApi, listAlerts } from '../alerts/alert-store.js';
import { filtersOf } from '../alerts/alerts.routes.js';
import { alertListSchema, policyAlertsParams, policyAlertsQuery } from '../alerts/alerts.schema.js';
import { toList } from '../http/list.js';
import { defineRoute, type RouteContext, type RouteDefinition } from '../http/route.js';
import { findPolicy } from './policies.repository.js';

export const policyAlertRoutes: RouteDefinition[] = [
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
