// ListFeedback: the feedback a caller may see, newest first with keyset paging, filtered by trace,
// workspace, creation time, value and weight. Organisation and workspace scope apply; a caller
// restricted to its own API keys sees feedback on traces logged with one of them (the traces it
// may see), as for logs.
import type { ListFeedbackRequest, ListFeedbackResponse } from '@aigw/proto';
import { type Kysely, type Selectable, sql } from 'kysely';
import { readPageAndTotal } from '../db/page-read.js';
import type { FeedbackTable, LogsDatabase } from '../db/schema.js';
import { requireCaller } from './caller-scope.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { toFeedback } from './feedback.store.js';
import { timeConditions } from './log-filter.js';
import { pageSize } from './logs.query.js';
import { invalidArgument } from './query-error.js';
import { all, anyOf, type Condition, col } from './sql-parts.js';

export async function listFeedback(
  db: Kysely<LogsDatabase>,
  request: ListFeedbackRequest,
): Promise<ListFeedbackResponse> {
  const caller = requireCaller(request.caller);
  if (
    request.fromMs < 0 ||
    request.toMs < 0 ||
    (request.fromMs && request.toMs && request.fromMs >= request.toMs)
  )
    throw invalidArgument('from_ms must be before to_ms');
  const cursor = decodeCursor(request.cursor);
  const empty: ListFeedbackResponse = request.includeTotal
    ? { feedback: [], nextCursor: '', total: 0 }
    : { feedback: [], nextCursor: '' };
  const conditions: Condition[] = [sql`f.organisation_id = ${caller.organisationId}`];
  if (!caller.allWorkspaces) {
    if (caller.workspaceIds.length === 0) return empty;
    conditions.push(anyOf(col('f', 'workspace_id'), caller.workspaceIds, 'text'));
  }
  if (caller.restrictToApiKeys) {
    if (caller.restrictToApiKeyIds.length === 0) return empty;
    conditions.push(sql`exists (select 1 from request_logs r where r.organisation_id = f.organisation_id
      and r.workspace_id = f.workspace_id and r.trace_id = f.trace_id
      and ${anyOf(col('r', 'api_key_id'), caller.restrictToApiKeyIds, 'text')})`);
  }
  conditions.push(...timeConditions(request.fromMs, request.toMs, 'f', 'created_at'));
  if (request.traceIds.length > 0) conditions.push(anyOf(col('f', 'trace_id'), request.traceIds, 'text'));
  if (request.workspaceIds.length > 0)
    conditions.push(anyOf(col('f', 'workspace_id'), request.workspaceIds, 'text'));
  const value = request.value;
  if (value?.min !== undefined) conditions.push(sql`f.value >= ${value.min}`);
  if (value?.max !== undefined) conditions.push(sql`f.value <= ${value.max}`);
  if (request.minWeight !== undefined) conditions.push(sql`f.weight >= ${request.minWeight}`);
  if (request.maxWeight !== undefined) conditions.push(sql`f.weight <= ${request.maxWeight}`);
  const where = all(conditions);
  const after = cursor
    ? sql`(f.created_at, f.id) < (${new Date(cursor.atMs)}, ${cursor.id}::uuid)`
    : sql`true`;
  const limit = pageSize(request.pageSize);
  const { rows, total } = await readPageAndTotal(
    db,
    sql<Selectable<FeedbackTable>>`select f.* from feedback f where ${where} and ${after}
      order by f.created_at desc, f.id desc limit ${limit + 1}`,
    request.includeTotal
      ? sql<{ n: string }>`select count(*)::bigint as n from feedback f where ${where}`
      : undefined,
  );
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const response: ListFeedbackResponse = {
    feedback: page.map(toFeedback),
    nextCursor:
      rows.length > limit && last ? encodeCursor({ atMs: last.created_at.getTime(), id: last.id }) : '',
  };
  if (total !== undefined) response.total = total;
  return response;
}
