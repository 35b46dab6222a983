// Invite rows as the API returns them. `expired` is derived: a pending invite whose expiry passed.
import type { Selectable } from 'kysely';
import { z } from 'zod';
import type { UserInvitesTable } from '../db/schema.js';

export type UserInviteRow = Selectable<UserInvitesTable>;

export const INVITE_STATUSES = ['pending', 'accepted', 'cancelled', 'expired'] as const;
export type InviteApiStatus = (typeof INVITE_STATUSES)[number];

export function inviteStatus(row: Pick<UserInviteRow, 'status' | 'expires_at'>, now: Date): InviteApiStatus {
  if (row.status === 'pending' && row.expires_at.getTime() <= now.getTime()) return 'expired';
  return row.status;
}

export const inviteSchema = z.object({
  id: z.uuid(),
  object: z.literal('user_invite'),
  email: z.string(),
  role: z.enum(['admin', 'member']),
  workspaces: z.array(z.object({ id: z.uuid(), role: z.enum(['manager', 'member']) })),
  status: z.enum(INVITE_STATUSES),
  invited_by_user_id: z.string().nullable(),
  invited_by_api_key_id: z.string().nullable(),
  accepted_user_id: z.string().nullable(),
  expires_at: z.string(),
  created_at: z.string(),
  last_updated_at: z.string(),
});

/** Creation and resend responses: the invite plus the one-time token (never shown again). */
export const inviteWithTokenSchema = inviteSchema.extend({ accept_token: z.string() });

export function inviteToApi(row: UserInviteRow, now: Date = new Date()) {
  return {
    id: row.id,
    object: 'user_invite' as const,
    email: row.email,
    role: row.role,
    workspaces: row.workspaces.map((w) => ({ id: w.id, role: w.role })),
    status: inviteStatus(row, now),
    invited_by_user_id: row.invited_by_user_id,
    invited_by_api_key_id: row.invited_by_api_key_id,
    accepted_user_id: row.accepted_user_id,
    expires_at: row.expires_at.toISOString(),
    created_at: row.created_at.toISOString(),
    last_updated_at: row.updated_at.toISOString(),
  };
}
