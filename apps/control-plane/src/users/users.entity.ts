// User rows as the API returns them, with the workspaces they belong to. Users are not sent to
// gateways: what gateways need of a user (its API keys) travels as api-key entities.
import type { Kysely, Selectable } from 'kysely';
import { z } from 'zod';
import type { ControlDatabase, UsersTable, WorkspaceRole } from '../db/schema.js';

export type UserRow = Selectable<UsersTable>;

export interface Membership {
  readonly id: string;
  readonly slug: string;
  readonly role: WorkspaceRole;
}

export const userSchema = z.object({
  id: z.uuid(),
  object: z.literal('user'),
  email: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  role: z.enum(['owner', 'admin', 'member']),
  status: z.enum(['active', 'removed']),
  workspaces: z.array(z.object({ id: z.uuid(), slug: z.string(), role: z.enum(['manager', 'member']) })),
  created_at: z.string(),
  last_updated_at: z.string(),
});

export function userToApi(row: UserRow, workspaces: readonly Membership[]) {
  return {
    id: row.id,
    object: 'user' as const,
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    role: row.role,
    status: row.status,
    workspaces: workspaces.map((w) => ({ id: w.id, slug: w.slug, role: w.role })),
    created_at: row.created_at.toISOString(),
    last_updated_at: row.updated_at.toISOString(),
  };
}

/** Workspace memberships of these users, by user id (slug order). */
export async function membershipsOf(
  db: Kysely<ControlDatabase>,
  userIds: readonly string[],
): Promise<Map<string, Membership[]>> {
  const byUser = new Map<string, Membership[]>();
  if (userIds.length === 0) return byUser;
  const rows = await db
    .selectFrom('workspace_members as m')
    .innerJoin('workspaces as w', 'w.id', 'm.workspace_id')
    .select(['m.user_id', 'w.id', 'w.slug', 'm.role'])
    .where('m.user_id', 'in', userIds)
    .orderBy('w.slug')
    .execute();
  for (const row of rows) {
    const list = byUser.get(row.user_id) ?? [];
    list.push({ id: row.id, slug: row.slug, role: row.role });
    byUser.set(row.user_id, list);
  }
  return byUser;
}

export async function userWithMemberships(db: Kysely<ControlDatabase>, row: UserRow) {
  return userToApi(row, (await membershipsOf(db, [row.id])).get(row.id) ?? []);
}
