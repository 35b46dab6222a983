// API key queries, always narrowed to what the caller may see: its organisation, its workspace when
// workspace-bound, and its own keys when it is a workspace member.
import { type Expression, type ExpressionBuilder, type Kysely, type SqlBool, sql } from 'kysely';
import { invalid, notFound, referenceNotFound } from '../api-errors.js';
import type { Principal } from '../auth/principal.js';
import { isUuid } from '../auth/visibility.js';
import { readPage } from '../db/page-read.js';
import type { ControlDatabase } from '../db/schema.js';
import { pageBounds } from '../http/list.js';
import type { ApiKeyRow } from './api-keys.entity.js';
import type { ListKeysQuery } from './api-keys.schema.js';

type Db = Kysely<ControlDatabase>;

const NOTHING = sql<SqlBool>`false`;

/** Token callers may carry ids that are not uuids; they match nothing instead of failing the query. */
function matches(
  eb: ExpressionBuilder<ControlDatabase, 'api_keys'>,
  column: 'organisation_id' | 'workspace_id' | 'user_id',
  value: string | null,
): Expression<SqlBool> {
  return value !== null && isUuid(value) ? eb(column, '=', value.toLowerCase()) : NOTHING;
}

export function visibleTo(principal: Principal) {
  return (eb: ExpressionBuilder<ControlDatabase, 'api_keys'>) => {
    const conditions = [matches(eb, 'organisation_id', principal.organisationId)];
    if (principal.workspaceId !== null) conditions.push(matches(eb, 'workspace_id', principal.workspaceId));
    if (principal.role === 'member') conditions.push(matches(eb, 'user_id', principal.userId));
    return eb.and(conditions);
  };
}

/** The key when the caller may see it, else 404 AB08; `forUpdate` locks the row in a transaction. */
export async function findVisibleKey(
  db: Db,
  principal: Principal,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<ApiKeyRow> {
  let query = db.selectFrom('api_keys').selectAll().where('id', '=', id).where(visibleTo(principal));
  if (options.forUpdate) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  if (!row) throw notFound('api key');
  return row;
}

export async function listKeys(
  db: Db,
  principal: Principal,
  query: ListKeysQuery,
  workspaceId: string | undefined,
): Promise<{ rows: ApiKeyRow[]; total: number }> {
  let base = db.selectFrom('api_keys').where(visibleTo(principal));
  if (workspaceId !== undefined) base = base.where('workspace_id', '=', workspaceId);
  if (query.type) base = base.where('type', 'in', query.type);
  if (query.status) base = base.where('status', 'in', query.status);
  if (query.user_id) base = base.where('user_id', '=', query.user_id);
  const { limit, offset } = pageBounds(query);
  return readPage(db, base, (q) =>
    q.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(limit).offset(offset),
  );
}

/**
 * The user a workspace user key belongs to: the one named, else the calling user. It must be an
 * active user of the caller's organisation who belongs to the workspace (owners and admins always
 * do); anything else is 404 AB02. Callers that are not users (admin or service keys) must name one.
 */
export async function keyOwner(
  db: Db,
  principal: Principal,
  workspaceId: string,
  requested: string | undefined,
): Promise<string> {
  const userId =
    requested ?? (principal.userId !== null && isUuid(principal.userId) ? principal.userId : null);
  if (userId === null) {
    throw invalid('user_id is required when the caller is not a user of this organisation', 'body.user_id');
  }
  const user = await db
    .selectFrom('users as u')
    .leftJoin('workspace_members as m', (join) =>
      join.onRef('m.user_id', '=', 'u.id').on('m.workspace_id', '=', workspaceId),
    )
    .select(['u.id', 'u.role', 'm.role as member_role'])
    .where('u.id', '=', userId.toLowerCase())
    .where('u.organisation_id', '=', principal.organisationId)
    .where('u.status', '=', 'active')
    .executeTakeFirst();
  if (!user) throw referenceNotFound('user not found', 'body.user_id');
  if (user.role === 'member' && user.member_role === null) {
    throw referenceNotFound('the user is not a member of this workspace', 'body.user_id');
  }
  return user.id;
}

/**
 * Keys a user already has in a workspace (active or disabled), counted under a transaction lock
 * on the pair so concurrent creations cannot both pass the limit.
 */
export async function countUserKeys(trx: Db, workspaceId: string, userId: string): Promise<number> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`api_keys:${workspaceId}:${userId}`}, 0))`.execute(
    trx,
  );
  const row = await trx
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .where('type', '=', 'workspace')
    .where('status', 'in', ['active', 'disabled'])
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
