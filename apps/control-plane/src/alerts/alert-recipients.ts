// Who an alert e-mail goes to (spec part 6): workspace admins and managers, and organisation admins.
import type { Kysely } from 'kysely';
import type { ControlDatabase } from '../db/schema.js';
import type { AlertRecipient } from './alerts.db.js';

/**
 * Workspaces have managers; their admins are the organisation's owners and admins. So: every
 * active owner and admin of the organisation, and the active managers of the given workspaces.
 */
export async function alertRecipients(
  db: Kysely<ControlDatabase>,
  organisationId: string,
  workspaceIds: readonly string[],
): Promise<AlertRecipient[]> {
  const admins = await db
    .selectFrom('users')
    .select(['id', 'email', 'role'])
    .where('organisation_id', '=', organisationId)
    .where('status', '=', 'active')
    .where('role', 'in', ['owner', 'admin'])
    .orderBy('email')
    .execute();
  const managers =
    workspaceIds.length === 0
      ? []
      : await db
          .selectFrom('workspace_members')
          .innerJoin('users', 'users.id', 'workspace_members.user_id')
          .select(['users.id', 'users.email'])
          .where('users.organisation_id', '=', organisationId)
          .where('users.status', '=', 'active')
          .where('workspace_members.role', '=', 'manager')
          .where('workspace_members.workspace_id', 'in', [...workspaceIds])
          .orderBy('users.email')
          .execute();
  const recipients = new Map<string, AlertRecipient>();
  for (const a of admins) {
    const reason = a.role === 'owner' ? 'organisation_owner' : 'organisation_admin';
    recipients.set(a.id, { user_id: a.id, email: a.email, reason });
  }
  for (const m of managers) {
    if (!recipients.has(m.id))
      recipients.set(m.id, { user_id: m.id, email: m.email, reason: 'workspace_manager' });
  }
  return [...recipients.values()];
}
