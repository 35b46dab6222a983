// Who may change whom (spec 5.3): owners manage everyone; admins manage members but never grant,
// take away or hold power over the admin and owner roles. The last owner is checked in the database.
import type { Role } from '../auth/principal.js';
import type { OrgRole } from '../db/schema.js';

/** Why `caller` may not update a user holding `target` (to `nextRole` when given), or null. */
export function updateRefusal(caller: Role, target: OrgRole, nextRole?: 'admin' | 'member'): string | null {
  if (caller === 'owner') return null;
  if (target === 'owner') return 'only an owner may change an owner';
  if (nextRole !== undefined && nextRole !== target && (nextRole === 'admin' || target === 'admin'))
    return 'only an owner may grant or remove the admin role';
  return null;
}

/** Why `caller` may not remove a user holding `target`, or null. */
export function removalRefusal(caller: Role, target: OrgRole): string | null {
  if (caller === 'owner') return null;
  if (target === 'owner') return 'only an owner may remove an owner';
  if (target === 'admin') return 'only an owner may remove an admin';
  return null;
}

/** Why `caller` may not invite (or re-send an invite) with organisation role `role`, or null. */
export function inviteRefusal(caller: Role, role: 'admin' | 'member'): string | null {
  if (role === 'admin' && caller !== 'owner') return 'only an owner may invite an admin';
  return null;
}
