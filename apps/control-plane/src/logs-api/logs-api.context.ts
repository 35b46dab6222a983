// Shared by the logs-api routes: the logger client (503 when none is configured) and page bounds.

import { type LoggerClient, loggerUnavailable } from '../http/logger-client.js';
import type { RouteContext } from '../http/route.js';

export function loggerOf(ctx: RouteContext<unknown, unknown, unknown>): LoggerClient {
  if (!ctx.logsService)
    throw loggerUnavailable('no logger is configured on this control plane (LOGGER_GRPC_URL)');
  return ctx.logsService;
}

export const iso = (ms: number | undefined) => (ms ? new Date(ms).toISOString() : null);
