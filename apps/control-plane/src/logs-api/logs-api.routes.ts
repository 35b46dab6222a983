// Every route served from the logger's LogsService. Order matters: the fixed `/logs/exports` and
// `/logs/groups/...` paths come before `/logs/:logId`.
import type { RouteDefinition } from '../http/route.js';
import { graphRoute, summaryRoute } from './analytics.routes.js';
import { listAuditLogsRoute } from './audit-logs.routes.js';
import {
  createExportRoute,
  downloadExportRoute,
  getExportRoute,
  listExportsRoute,
} from './exports.routes.js';
import { createFeedbackRoute, listFeedbackRoute, updateFeedbackRoute } from './feedback.routes.js';
import { analyticsGroupsRoute, logGroupsRoute } from './groups.routes.js';
import { getLogRoute, listLogsRoute } from './logs.routes.js';

export const logsApiRoutes: readonly RouteDefinition[] = [
  createExportRoute,
  listExportsRoute,
  getExportRoute,
  downloadExportRoute,
  logGroupsRoute,
  listLogsRoute,
  getLogRoute,
  analyticsGroupsRoute,
  graphRoute,
  summaryRoute,
  listAuditLogsRoute,
  listFeedbackRoute,
  createFeedbackRoute,
  updateFeedbackRoute,
];
