// Feedback on traces: created and updated through LogsService, shown on logs and in the summary.
// Feedback belongs to the workspace of the trace it names: it is given only on a trace the caller
// may see (a stored log of it in that workspace, within the caller's scope), else NOT_FOUND as for
// any other row of another workspace. `created_by` holds the creating Actor as JSON, so restricted
// callers can be matched to their own. Listing is in feedback.query.ts.
import {
  Actor,
  type CallerContext,
  type CreateFeedbackRequest,
  type Feedback,
  type UpdateFeedbackRequest,
} from '@aigw/proto';
import { type Kysely, type Selectable, sql } from 'kysely';
import { feedbackValueInRange, feedbackWeightInRange } from '../db/feedback-range.js';
import type { FeedbackTable, LogsDatabase } from '../db/schema.js';
import { canSeeWorkspace, requireCaller, scopeConditions } from './caller-scope.js';
import { alreadyExists, invalidArgument, notFound } from './query-error.js';
import { all, isUuid } from './sql-parts.js';

type FeedbackRow = Selectable<FeedbackTable>;

const MAX_METADATA_KEYS = 64;
const MAX_METADATA_BYTES = 16 * 1024;

function checkValue(value: number): void {
  if (!feedbackValueInRange(value)) throw invalidArgument('value must be an integer from -10 to 10');
}

function checkWeight(weight: number): void {
  if (!feedbackWeightInRange(weight)) throw invalidArgument('weight must be from 0 to 1');
}

function checkMetadata(metadata: Record<string, string>): string {
  const keys = Object.keys(metadata);
  if (keys.length > MAX_METADATA_KEYS)
    throw invalidArgument(`metadata has more than ${MAX_METADATA_KEYS} keys`);
  const text = JSON.stringify(metadata);
  if (Buffer.byteLength(text) > MAX_METADATA_BYTES)
    throw invalidArgument(`metadata is over ${MAX_METADATA_BYTES} bytes`);
  return text;
}

export function actorKey(actor: Actor | undefined): string {
  return JSON.stringify(Actor.toJSON(actor ?? Actor.fromPartial({})));
}

export function sameActor(stored: string | null, actor: Actor | undefined): boolean {
  if (stored === null || !actor) return false;
  try {
    const a = Actor.fromJSON(JSON.parse(stored));
    const b = actor;
    return a.type === b.type && a.userId === b.userId && a.apiKeyId === b.apiKeyId;
  } catch {
    return false;
  }
}

export async function createFeedback(
  db: Kysely<LogsDatabase>,
  request: CreateFeedbackRequest,
): Promise<Feedback> {
  const caller = requireCaller(request.caller);
  if (!isUuid(request.id)) throw invalidArgument('id must be a uuid');
  const traceId = request.traceId.trim();
  if (traceId === '' || traceId.length > 255) throw invalidArgument('trace_id must be 1 to 255 characters');
  checkValue(request.value);
  checkWeight(request.weight);
  const metadata = checkMetadata(request.metadata);
  if (request.workspaceId === '') throw invalidArgument('workspace_id is required');
  const workspaceId = request.workspaceId;
  if (!canSeeWorkspace(caller, workspaceId) || !(await traceVisible(db, caller, workspaceId, traceId)))
    throw notFound(`trace ${traceId} not found`);
  const row = await db
    .insertInto('feedback')
    .values({
      id: request.id.toLowerCase(),
      trace_id: traceId,
      organisation_id: caller.organisationId,
      workspace_id: workspaceId,
      value: request.value,
      weight: request.weight,
      metadata,
      created_by: actorKey(caller.actor),
    })
    .onConflict((oc) => oc.column('id').doNothing())
    .returningAll()
    .executeTakeFirst();
  if (!row) throw alreadyExists(`feedback ${request.id} already exists`);
  return toFeedback(row);
}

export async function updateFeedback(
  db: Kysely<LogsDatabase>,
  request: UpdateFeedbackRequest,
): Promise<Feedback> {
  const caller = requireCaller(request.caller);
  const current = isUuid(request.id) ? await visibleFeedback(db, caller, request.id) : undefined;
  if (!current) throw notFound(`feedback ${request.id} not found`);
  if (request.value !== undefined) checkValue(request.value);
  if (request.weight !== undefined) checkWeight(request.weight);
  const row = await db
    .updateTable('feedback')
    .set({
      ...(request.value !== undefined ? { value: request.value } : {}),
      ...(request.weight !== undefined ? { weight: request.weight } : {}),
      ...(request.replaceMetadata ? { metadata: checkMetadata(request.metadata) } : {}),
      updated_at: sql<Date>`now()` as unknown as Date,
    })
    .where('id', '=', current.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toFeedback(row);
}

/** Does the caller see a stored log of `traceId` in `workspaceId`? */
async function traceVisible(
  db: Kysely<LogsDatabase>,
  caller: CallerContext,
  workspaceId: string,
  traceId: string,
): Promise<boolean> {
  const scope = scopeConditions(caller, 'r');
  if (!scope) return false;
  const { rows } = await sql`select 1 from request_logs r where ${all(scope)}
    and r.workspace_id = ${workspaceId} and r.trace_id = ${traceId} limit 1`.execute(db);
  return rows.length > 0;
}

async function visibleFeedback(db: Kysely<LogsDatabase>, caller: CallerContext, id: string) {
  const row = await db
    .selectFrom('feedback')
    .selectAll()
    .where('id', '=', id.toLowerCase())
    .where('organisation_id', '=', caller.organisationId)
    .executeTakeFirst();
  if (!row || !canSeeWorkspace(caller, row.workspace_id)) return undefined;
  // Callers limited to their own keys' data may change only the feedback they gave.
  if (caller.restrictToApiKeys && !sameActor(row.created_by, caller.actor)) return undefined;
  return row;
}

/** The feedback shown on a log: on its trace, in its workspace (another workspace's is not its own). */
export async function feedbackForTrace(
  db: Kysely<LogsDatabase>,
  organisationId: string,
  workspaceId: string | null,
  traceId: string,
) {
  if (workspaceId === null) return [];
  const rows = await db
    .selectFrom('feedback')
    .selectAll()
    .where('organisation_id', '=', organisationId)
    .where('workspace_id', '=', workspaceId)
    .where('trace_id', '=', traceId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toFeedback);
}

export function toFeedback(row: FeedbackRow): Feedback {
  let createdBy: Actor | undefined;
  try {
    createdBy = row.created_by === null ? undefined : Actor.fromJSON(JSON.parse(row.created_by));
  } catch {
    createdBy = undefined;
  }
  const metadata = (row.metadata ?? {}) as Record<string, unknown>;
  return {
    id: row.id,
    traceId: row.trace_id,
    value: row.value,
    weight: row.weight,
    metadata: Object.fromEntries(
      Object.entries(metadata).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
    ),
    organisationId: row.organisation_id,
    workspaceId: row.workspace_id ?? '',
    createdBy,
    createdAtMs: row.created_at.getTime(),
    updatedAtMs: row.updated_at.getTime(),
  };
}
