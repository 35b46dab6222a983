// ListLogs and GetLog: stored request logs, newest first with keyset paging, bodies on request.
import {
  type GetLogRequest,
  type GetLogResponse,
  type ListLogsRequest,
  type ListLogsResponse,
  type LogEntry,
  RequestEvent,
} from '@aigw/proto';
import { type Kysely, type Selectable, sql } from 'kysely';
import { readPageAndTotal } from '../db/page-read.js';
import type { LogsDatabase, RequestLogsTable } from '../db/schema.js';
import { scopeConditions } from './caller-scope.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { feedbackForTrace } from './feedback.store.js';
import { normaliseFilter, rawConditions } from './log-filter.js';
import { notFound } from './query-error.js';
import { all, isUuid } from './sql-parts.js';

type LogRow = Selectable<RequestLogsTable>;

const LIST_COLUMNS = [
  'id',
  'received_at',
  'ingested_at',
  'trace_id',
  'request_size_bytes',
  'response_size_bytes',
  'request_body_truncated',
  'response_body_truncated',
  'request_body_content_type',
  'response_body_content_type',
  'log_format',
  'organisation_id',
  'event',
] as const;

export function pageSize(requested: number): number {
  return requested === 0 ? 50 : Math.min(requested, 500);
}

export async function listLogs(
  db: Kysely<LogsDatabase>,
  request: ListLogsRequest,
): Promise<ListLogsResponse> {
  const scope = scopeConditions(request.caller, 'r');
  const filter = normaliseFilter(request.filter);
  const cursor = decodeCursor(request.cursor);
  if (!scope)
    return request.includeTotal ? { logs: [], nextCursor: '', total: 0 } : { logs: [], nextCursor: '' };
  const where = all([...scope, ...rawConditions(filter, 'r')]);
  const after = cursor
    ? sql`(r.received_at, r.id) < (${new Date(cursor.atMs)}, ${cursor.id}::uuid)`
    : sql`true`;
  const limit = pageSize(request.pageSize);
  // Bodies stay on disk (TOAST) unless asked for.
  const columns = request.includeBodies
    ? sql`r.*`
    : sql`${sql.join(LIST_COLUMNS.map((c) => sql.ref(`r.${c}`)))}, null::bytea as request_body, null::bytea as response_body`;
  const { rows, total } = await readPageAndTotal(
    db,
    sql<LogRow>`select ${columns} from request_logs r where ${where} and ${after}
      order by r.received_at desc, r.id desc limit ${limit + 1}`,
    request.includeTotal
      ? sql<{ n: string }>`select count(*)::bigint as n from request_logs r where ${where}`
      : undefined,
  );
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const response: ListLogsResponse = {
    logs: page.map((row) => toEntry(row, request.includeBodies)),
    nextCursor:
      rows.length > limit && last ? encodeCursor({ atMs: last.received_at.getTime(), id: last.id }) : '',
  };
  if (total !== undefined) response.total = total;
  return response;
}

export async function getLog(db: Kysely<LogsDatabase>, request: GetLogRequest): Promise<GetLogResponse> {
  const scope = scopeConditions(request.caller, 'r');
  if (!scope || !isUuid(request.id)) throw notFound(`log ${request.id} not found`);
  const { rows } =
    await sql<LogRow>`select r.* from request_logs r where ${all(scope)} and r.id = ${request.id}::uuid
    limit 1`.execute(db);
  const row = rows[0];
  if (!row) throw notFound(`log ${request.id} not found`);
  const entry = toEntry(row, true);
  if (row.trace_id && row.organisation_id)
    entry.feedback = await feedbackForTrace(db, row.organisation_id, row.workspace_id, row.trace_id);
  return { log: entry, logFormat: row.log_format };
}

/** The stored event (kept without bodies) with the bodies put back when asked for. */
export function toEntry(row: LogRow, withBodies: boolean): LogEntry {
  const request = RequestEvent.decode(row.event);
  if (withBodies) {
    if (row.request_body)
      request.requestBody = {
        data: row.request_body,
        truncated: row.request_body_truncated,
        sizeBytes: Number(row.request_size_bytes),
        contentType: row.request_body_content_type ?? '',
      };
    if (row.response_body)
      request.responseBody = {
        data: row.response_body,
        truncated: row.response_body_truncated,
        sizeBytes: Number(row.response_size_bytes),
        contentType: row.response_body_content_type ?? '',
      };
  }
  return { request, ingestedAtMs: row.ingested_at.getTime(), feedback: [] };
}
