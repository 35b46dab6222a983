// Who the signed-in caller is (GET /v1/me), and what the console offers them: a page is shown when
// the caller holds the scope its first call needs. The API checks every call again.
import type { paths } from './schema.js';

export type Me = paths['/me']['get']['responses']['200']['content']['application/json'];

export function can(me: Pick<Me, 'scopes'>, scope: string): boolean {
  return me.scopes.includes(scope);
}

export function isOrganisationLevel(me: Pick<Me, 'workspace'>): boolean {
  return me.workspace === null;
}
