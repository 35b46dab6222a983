// Log exports as LogsService shows them: create (queued for the runner), get, list, download. An
// export keeps the CallerContext it was created with; the runner exports what that caller could list.
import {
  Actor,
  CallerContext,
  type CreateExportRequest,
  type DownloadExportResponse,
  ExportFormat,
  ExportStatus,
  type LogExport,
  LogFilter,
} from '@aigw/proto';
import type { Kysely, Selectable } from 'kysely';
import type { LogExportsTable, LogsDatabase } from '../../db/schema.js';
import { requireCaller } from '../caller-scope.js';
import { actorKey, sameActor } from '../feedback.store.js';
import { pageOf } from '../groups.query.js';
import { normaliseFilter } from '../log-filter.js';
import {
  alreadyExists,
  failedPrecondition,
  invalidArgument,
  notFound,
  permissionDenied,
} from '../query-error.js';
import { isUuid } from '../sql-parts.js';
import { CONTENT_TYPES, checkFields } from './export-fields.js';

export type ExportRow = Selectable<LogExportsTable>;

const STATUS: Readonly<Record<string, ExportStatus>> = {
  pending: ExportStatus.PENDING,
  running: ExportStatus.RUNNING,
  succeeded: ExportStatus.SUCCEEDED,
  failed: ExportStatus.FAILED,
  cancelled: ExportStatus.FAILED,
};

/** What the runner needs from a stored export. */
export interface StoredRequest {
  readonly filter: LogFilter;
  readonly caller: CallerContext;
}

export function storedRequest(row: ExportRow): StoredRequest {
  const value = (row.filters ?? {}) as { filter?: unknown; caller?: unknown };
  return {
    filter: LogFilter.fromJSON(value.filter ?? {}),
    caller: CallerContext.fromJSON(value.caller ?? {}),
  };
}

export async function createExport(
  db: Kysely<LogsDatabase>,
  request: CreateExportRequest,
  options: { enabled: boolean },
): Promise<LogExport> {
  if (!options.enabled)
    throw permissionDenied('log exports are turned off on this logger (DATA_EXPORTS_ENABLED=OFF)');
  const caller = requireCaller(request.caller);
  if (!isUuid(request.id)) throw invalidArgument('id must be a uuid');
  const format =
    request.format === ExportFormat.JSONL ? 'jsonl' : request.format === ExportFormat.CSV ? 'csv' : null;
  if (!format) throw invalidArgument('format must be JSONL or CSV');
  const fields = checkFields(request.fields);
  const filter = normaliseFilter(request.filter);
  const row = await db
    .insertInto('log_exports')
    .values({
      id: request.id.toLowerCase(),
      organisation_id: caller.organisationId,
      workspace_id:
        !caller.allWorkspaces && caller.workspaceIds.length === 1 ? (caller.workspaceIds[0] ?? null) : null,
      filters: JSON.stringify({ filter: LogFilter.toJSON(filter), caller: CallerContext.toJSON(caller) }),
      fields,
      format,
      status: 'pending',
      created_by: actorKey(caller.actor),
    })
    .onConflict((oc) => oc.column('id').doNothing())
    .returningAll()
    .executeTakeFirst();
  if (!row) throw alreadyExists(`export ${request.id} already exists`);
  return toExport(row);
}

/** The creator always sees its export; others by workspace scope, never when restricted to own keys. */
function visible(row: ExportRow, caller: CallerContext): boolean {
  if (row.organisation_id !== caller.organisationId) return false;
  if (sameActor(row.created_by, caller.actor)) return true;
  if (caller.restrictToApiKeys) return false;
  if (caller.allWorkspaces) return true;
  return row.workspace_id !== null && caller.workspaceIds.includes(row.workspace_id);
}

export async function getExport(db: Kysely<LogsDatabase>, callerIn: CallerContext | undefined, id: string) {
  const caller = requireCaller(callerIn);
  const row = isUuid(id)
    ? await db.selectFrom('log_exports').selectAll().where('id', '=', id.toLowerCase()).executeTakeFirst()
    : undefined;
  if (!row || !visible(row, caller)) throw notFound(`export ${id} not found`);
  return row;
}

export async function listExports(
  db: Kysely<LogsDatabase>,
  callerIn: CallerContext | undefined,
  page: { pageSize: number; currentPage: number },
): Promise<{ exports: LogExport[]; total: number }> {
  const caller = requireCaller(callerIn);
  // Visibility mixes workspace scope and authorship; one organisation's exports are few, so the
  // rule runs here rather than in SQL.
  const rows = await db
    .selectFrom('log_exports')
    .selectAll()
    .where('organisation_id', '=', caller.organisationId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  const mine = rows.filter((r) => visible(r, caller));
  const { limit, offset } = pageOf(page.pageSize, page.currentPage);
  return { exports: mine.slice(offset, offset + limit).map(toExport), total: mine.length };
}

/** The file of a succeeded export, chunk by chunk in order. */
export async function* downloadExport(
  db: Kysely<LogsDatabase>,
  caller: CallerContext | undefined,
  id: string,
): AsyncGenerator<DownloadExportResponse> {
  const row = await getExport(db, caller, id);
  if (row.status !== 'succeeded')
    throw failedPrecondition(`export ${id} is ${row.status}; download it once it succeeded`);
  let first = true;
  let seq = -1;
  for (;;) {
    const chunks = await db
      .selectFrom('log_export_chunks')
      .select(['seq', 'data'])
      .where('export_id', '=', row.id)
      .where('seq', '>', seq)
      .orderBy('seq')
      .limit(16)
      .execute();
    for (const chunk of chunks) {
      seq = chunk.seq;
      yield first
        ? {
            data: chunk.data,
            contentType: CONTENT_TYPES[row.format],
            filename: `logs-${row.id}.${row.format}`,
          }
        : { data: chunk.data, contentType: '', filename: '' };
      first = false;
    }
    if (chunks.length < 16) break;
  }
  if (first)
    yield {
      data: Buffer.alloc(0),
      contentType: CONTENT_TYPES[row.format],
      filename: `logs-${row.id}.${row.format}`,
    };
}

export function toExport(row: ExportRow): LogExport {
  const stored = storedRequest(row);
  let requestedBy: LogExport['requestedBy'];
  try {
    requestedBy = row.created_by === null ? undefined : Actor.fromJSON(JSON.parse(row.created_by));
  } catch {
    requestedBy = undefined;
  }
  return {
    id: row.id,
    organisationId: row.organisation_id,
    filter: stored.filter,
    fields: row.fields,
    format: row.format === 'csv' ? ExportFormat.CSV : ExportFormat.JSONL,
    status: STATUS[row.status] ?? ExportStatus.UNSPECIFIED,
    totalRows: Number(row.total_rows),
    exportedRows: Number(row.row_count),
    progress: row.status === 'succeeded' ? 1 : row.progress,
    sizeBytes: Number(row.size_bytes),
    error: row.error ?? '',
    requestedBy,
    createdAtMs: row.created_at.getTime(),
    startedAtMs: row.started_at?.getTime() ?? 0,
    completedAtMs: row.completed_at?.getTime() ?? 0,
  };
}
