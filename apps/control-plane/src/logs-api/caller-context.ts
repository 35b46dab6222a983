// What a caller may see in the logger's data (spec 2.6), as the CallerContext every LogsService call
// carries: owners and admins see the whole organisation; a workspace-bound caller sees its workspace,
// and only its own API keys' data when its role's *ViewAllData setting (workspace override first) is
// false; *ViewAnalytics=false hides analytics. The logger fails closed on whatever is left empty.
import type { CallerContext } from '@aigw/proto';
import type { Kysely } from 'kysely';
import { forbidden } from '../api-errors.js';
import { actorOf, type Principal } from '../auth/principal.js';
import { isUuid } from '../auth/visibility.js';
import type { ControlDatabase } from '../db/schema.js';
import { type AccessOverrides, effectiveAccess } from '../organisations/access-settings.js';

export interface Visibility {
  readonly caller: CallerContext;
  /** May the caller view analytics (groups, graphs, summary)? */
  readonly analytics: boolean;
  /** The role whose settings applied (null: full access). */
  readonly settingsRole: 'member' | 'manager' | null;
}

export async function visibilityOf(db: Kysely<ControlDatabase>, principal: Principal): Promise<Visibility> {
  const base = { organisationId: principal.organisationId, actor: actorOf(principal) };
  const orgLevel = principal.role === 'owner' || principal.role === 'admin';
  if (principal.workspaceId === null) {
    // Organisation-level callers are owners and admins; anything else here has no workspace to see.
    const caller: CallerContext = orgLevel
      ? { ...base, allWorkspaces: true, workspaceIds: [], restrictToApiKeys: false, restrictToApiKeyIds: [] }
      : {
          ...base,
          allWorkspaces: false,
          workspaceIds: [],
          restrictToApiKeys: false,
          restrictToApiKeyIds: [],
        };
    return { caller, analytics: orgLevel, settingsRole: null };
  }
  const workspaceId = principal.workspaceId;
  const full: CallerContext = {
    ...base,
    allWorkspaces: false,
    workspaceIds: [workspaceId],
    restrictToApiKeys: false,
    restrictToApiKeyIds: [],
  };
  // A workspace key of an organisation owner or admin acts as manager, but the person keeps full
  // access to data (spec 2.6: owners and admins always have full access).
  if (await isOrganisationAdmin(db, principal)) return { caller: full, analytics: true, settingsRole: null };
  const role = principal.role === 'member' ? 'member' : 'manager';
  const settings = await accessFor(db, principal.organisationId, workspaceId);
  const viewAll = role === 'member' ? settings.membersViewAllData : settings.managersViewAllData;
  const analytics = role === 'member' ? settings.membersViewAnalytics : settings.managersViewAnalytics;
  if (viewAll) return { caller: full, analytics, settingsRole: role };
  return {
    caller: { ...full, restrictToApiKeys: true, restrictToApiKeyIds: await ownKeys(db, principal) },
    analytics,
    settingsRole: role,
  };
}

/** 403 unless the caller's role may view analytics. */
export function requireAnalytics(visibility: Visibility): void {
  if (visibility.analytics) return;
  const setting = visibility.settingsRole === 'member' ? 'membersViewAnalytics' : 'managersViewAnalytics';
  throw forbidden(
    `analytics are hidden from the ${visibility.settingsRole ?? 'caller'} role here (${setting}=false)`,
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

async function accessFor(db: Kysely<ControlDatabase>, organisationId: string, workspaceId: string) {
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

/** The caller's own keys: every key of its user; a key without a user is its own only key. */
async function ownKeys(db: Kysely<ControlDatabase>, principal: Principal): Promise<string[]> {
  if (principal.userId !== null && isUuid(principal.userId)) {
    const rows = await db
      .selectFrom('api_keys')
      .select('id')
      .where('organisation_id', '=', principal.organisationId)
      .where('user_id', '=', principal.userId)
      .execute();
    return rows.map((r) => r.id);
  }
  return principal.apiKeyId === null ? [] : [principal.apiKeyId];
}
