// Who is calling the admin API: an API key or a token, resolved to one organisation, an optional
// bound workspace, a role and a set of scopes.
import { type Actor, ActorType } from '@aigw/proto';
import type { ApiKeyType } from '../db/schema.js';

/** Organisation roles (owner, admin) and workspace roles (manager, member), spec 5.3. */
export type Role = 'owner' | 'admin' | 'manager' | 'member';

export interface Principal {
  readonly via: 'api_key' | 'jwt';
  readonly organisationId: string;
  /** The one workspace a workspace key or workspace token may see; null for organisation-level callers. */
  readonly workspaceId: string | null;
  readonly role: Role;
  readonly scopes: ReadonlySet<string>;
  readonly userId: string | null;
  readonly apiKeyId: string | null;
  readonly keyType: ApiKeyType | null;
  /** A label for audit readers (key name or token subject). */
  readonly displayName: string;
}

export function isOrganisationLevel(principal: Principal): boolean {
  return principal.workspaceId === null;
}

export function actorOf(principal: Principal): Actor {
  return {
    type: principal.via === 'jwt' ? ActorType.USER : ActorType.API_KEY,
    userId: principal.userId ?? '',
    apiKeyId: principal.apiKeyId ?? '',
    displayName: principal.displayName,
  };
}

export const SYSTEM_ACTOR: Actor = {
  type: ActorType.SYSTEM,
  userId: '',
  apiKeyId: '',
  displayName: 'system',
};

const RANK: Readonly<Record<Role, number>> = { member: 1, manager: 2, admin: 3, owner: 4 };

/** True when `role` is at least `minimum` (owner > admin > manager > member). */
export function roleAtLeast(role: Role, minimum: Role): boolean {
  return RANK[role] >= RANK[minimum];
}
