// Who may view and edit prompts (spec 2.6): organisation owners and admins always; in a workspace,
// members and managers as the workspace's settings say (workspace override, else the organisation's,
// else the defaults: both view, only managers edit). Publishing and moving labels are edits. Checked
// on top of the route's scope; a refusal is 403 naming the setting. Applies to prompts, partials,
// collections and labels alike.
import type { Kysely } from 'kysely';
import { forbidden } from '../api-errors.js';
import type { Principal } from '../auth/principal.js';
import { isUuid } from '../auth/visibility.js';
import type { ControlDatabase } from '../db/schema.js';
import { type AccessOverrides, effectiveAccess } from '../organisations/access-settings.js';

export type PromptAccess = 'view' | 'write';

export async function requirePromptAccess(
  db: Kysely<ControlDatabase>,
  principal: Principal,
  need: PromptAccess,
): Promise<void> {
  if (principal.workspaceId === null) {
    // Organisation-level callers are owners and admins (route levels admit no one else here).
    return;
  }
  if (await isOrganisationAdmin(db, principal)) return;
  const role = principal.role === 'member' ? 'member' : 'manager';
  const settings = await workspaceAccess(db, principal.organisationId, principal.workspaceId);
  const name = `${role}s${need === 'view' ? 'View' : 'Write'}Prompts` as const;
  if (settings[name]) return;
  throw forbidden(
    `${need === 'view' ? 'viewing' : 'editing'} prompts is not allowed for the ${role} role in this workspace (${name}=false)`,
  );
}

async function isOrganisationAdmin(db: Kysely<ControlDatabase>, principal: Principal): Promise<boolean> {
  if (principal.userId === null || !isUuid(principal.userId)) return false;
  const user = await db
    .selectFrom('users')
    .select(['role', 'status'])
    .where('id', '=', principal.userId)
    .where('organisation_id', '=', principal.organisationId)
    .executeTakeFirst();
  return user?.status === 'active' && (user.role === 'owner' || user.role === 'admin');
}

async function workspaceAccess(db: Kysely<ControlDatabase>, organisationId: string, workspaceId: string) {
  const row = await db
    .selectFrom('workspaces as w')
    .innerJoin('organisations as o', 'o.id', 'w.organisation_id')
    .select(['o.settings as org', 'w.settings as ws'])
    .where('w.id', '=', workspaceId)
    .where('w.organisation_id', '=', organisationId)
    .executeTakeFirst();
  const access = (settings: Record<string, unknown> | undefined) =>
    (settings?.access ?? {}) as AccessOverrides;
  return effectiveAccess(access(row?.org), access(row?.ws));
}
