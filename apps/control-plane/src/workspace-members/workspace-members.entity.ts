// Workspace members as the API returns them: the membership joined with its user. Members are not
// sent to gateways; what gateways need of a membership (the user's keys) travels as api-key entities.
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { ControlDatabase, OrgRole, WorkspaceRole } from '../db/schema.js';

export const WORKSPACE_ROLES = ['manager', 'member'] as const;

export const memberSchema = z.object({
  id: z.uuid(),
  object: z.literal('workspace_member'),
  user_id: z.uuid(),
  workspace_id: z.uuid(),
  role: z.enum(WORKSPACE_ROLES),
  email: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  organisation_role: z.enum(['owner', 'admin', 'member']),
  user_status: z.enum(['active', 'removed']),
  created_at: z.string(),
  last_updated_at: z.string(),
});

export interface MemberRow {
  readonly workspace_id: string;
  readonly user_id: string;
  readonly role: WorkspaceRole;
  readonly email: string;
  readonly first_name: string;
  readonly last_name: string;
  readonly organisation_role: OrgRole;
  readonly user_status: 'active' | 'removed';
  readonly created_at: Date;
  readonly updated_at: Date;
}

/** A member is identified by its user: `id` equals `user_id`. */
export function memberToApi(row: MemberRow) {
  return {
    id: row.user_id,
    object: 'workspace_member' as const,
    user_id: row.user_id,
    workspace_id: row.workspace_id,
    role: row.role,
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    organisation_role: row.organisation_role,
    user_status: row.user_status,
    created_at: row.created_at.toISOString(),
    last_updated_at: row.updated_at.toISOString(),
  };
}

/** Memberships of one workspace joined with their users (filter and page them further). */
export function membersQuery(db: Kysely<ControlDatabase>, workspaceId: string) {
  return db
    .selectFrom('workspace_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .where('m.workspace_id', '=', workspaceId);
}

export const MEMBER_COLUMNS = [
  'm.workspace_id',
  'm.user_id',
  'm.role',
  'u.email',
  'u.first_name',
  'u.last_name',
  'u.role as organisation_role',
  'u.status as user_status',
  'm.created_at',
  'm.updated_at',
] as const;

export async function findMember(
  db: Kysely<ControlDatabase>,
  workspaceId: string,
  userId: string,
): Promise<MemberRow | undefined> {
  return membersQuery(db, workspaceId)
    .select(MEMBER_COLUMNS)
    .where('m.user_id', '=', userId)
    .executeTakeFirst();
}
