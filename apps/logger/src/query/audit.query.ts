// ListAuditEvents: audit records newest first with keyset paging. Organisation and workspace scope
// apply (organisation-level records only to callers that see every workspace); API key restriction
// does not (audit records are not request data). Unattributed records (no organisation: a refused
// credential whose organisation could not be known) belong to no tenant: they are listed only when
// the request asks for them (`unattributed`, the platform scope the control plane grants to the
// deployment's operator alone), and then nothing else is.
import {
  type AuditEvent,
  AuditOutcome,
  type ListAuditEventsRequest,
  type ListAuditEventsResponse,
} from '@aigw/proto';
import { type Kysely, type Selectable, sql } from 'kysely';
import { readPageAndTotal } from '../db/page-read.js';
import type { AuditLogsTable, LogsDatabase } from '../db/schema.js';
import { scopeConditions } from './caller-scope.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { timeConditions } from './log-filter.js';
import { pageSize } from './logs.query.js';
import { invalidArgument } from './query-error.js';
import { all, anyOf, type Condition, col } from './sql-parts.js';

type AuditRow = Selectable<AuditLogsTable>;

export async function listAuditEvents(
  db: Kysely<LogsDatabase>,
  request: ListAuditEventsRequest,
): Promise<ListAuditEventsResponse> {
  const scope = scopeConditions(request.caller, 'a', {
    organisation: 'organisation_id',
    workspace: 'workspace_id',
  });
  const cursor = decodeCursor(request.cursor);
  if (
    request.fromMs < 0 ||
    request.toMs < 0 ||
    (request.fromMs && request.toMs && request.fromMs >= request.toMs)
  )
    throw invalidArgument('from_ms must be before to_ms');
  if (request.outcome !== AuditOutcome.UNSPECIFIED && !(request.outcome in AuditOutcome))
    throw invalidArgument('outcome must be one of the AuditOutcome values');
  if (!scope)
    return request.includeTotal ? { events: [], nextCursor: '', total: 0 } : { events: [], nextCursor: '' };
  const conditions: Condition[] = [
    ...(request.unattributed ? [sql`a.organisation_id is null`] : scope),
    ...timeConditions(request.fromMs, request.toMs, 'a', 'occurred_at'),
  ];
  const text = (values: readonly string[], column: string) => {
    if (values.length > 0) conditions.push(anyOf(col('a', column), values, 'text'));
  };
  text(request.workspaceIds, 'workspace_id');
  text(request.userIds, 'actor_user_id');
  text(request.apiKeyIds, 'actor_api_key_id');
  text(request.actions, 'action');
  text(request.ips, 'ip');
  if (request.resourceType !== '') conditions.push(sql`a.resource_type = ${request.resourceType}`);
  if (request.resourceId !== '') conditions.push(sql`a.resource_id = ${request.resourceId}`);
  if (request.outcome !== AuditOutcome.UNSPECIFIED) conditions.push(sql`a.outcome = ${request.outcome}`);
  if (request.statusCodes.length > 0)
    conditions.push(anyOf(col('a', 'status_code'), request.statusCodes, 'int'));
  const where = all(conditions);
  const after = cursor
    ? sql`(a.occurred_at, a.id) < (${new Date(cursor.atMs)}, ${cursor.id}::uuid)`
    : sql`true`;
  const limit = pageSize(request.pageSize);
  const { rows, total } = await readPageAndTotal(
    db,
    sql<AuditRow>`select a.* from audit_logs a where ${where} and ${after}
      order by a.occurred_at desc, a.id desc limit ${limit + 1}`,
    request.includeTotal
      ? sql<{ n: string }>`select count(*)::bigint as n from audit_logs a where ${where}`
      : undefined,
  );
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const response: ListAuditEventsResponse = {
    events: page.map(toAuditEvent),
    nextCursor:
      rows.length > limit && last ? encodeCursor({ atMs: last.occurred_at.getTime(), id: last.id }) : '',
  };
  if (total !== undefined) response.total = total;
  return response;
}

function detailsText(details: unknown): string {
  // The ingest keeps text that was not JSON as {"raw": text}: give the text back as it came.
  if (details && typeof details === 'object' && !Array.isArray(details)) {
    const keys = Object.keys(details);
    const raw = (details as { raw?: unknown }).raw;
    if (keys.length === 1 && typeof raw === 'string') return raw;
  }
  return JSON.stringify(details ?? {});
}

export function toAuditEvent(row: AuditRow): AuditEvent {
  return {
    schemaVersion: 1,
    id: row.id,
    occurredAtMs: row.occurred_at.getTime(),
    organisationId: row.organisation_id ?? '',
    workspaceId: row.workspace_id ?? '',
    actor: {
      type: row.actor_type,
      userId: row.actor_user_id ?? '',
      apiKeyId: row.actor_api_key_id ?? '',
      displayName: row.actor_display_name ?? '',
    },
    action: row.action,
    resourceType: row.resource_type,
    resourceId: row.resource_id ?? '',
    ip: row.ip ?? '',
    userAgent: row.user_agent ?? '',
    requestMethod: row.request_method ?? '',
    requestPath: row.request_path ?? '',
    requestDetailsJson: detailsText(row.request_details),
    outcome: row.outcome,
    statusCode: row.status_code,
    traceId: row.trace_id ?? '',
  };
}
