// Who is calling, as authentication established it from the snapshot: the tenant, the workspace and
// the key or token, with the entities later stages read (defaults, settings, own limits).
import type { EntityOf } from '../snapshot/index.js';

export interface Identity {
  readonly via: 'api_key' | 'jwt';
  readonly organisation: EntityOf<'organisation'>;
  readonly workspace: EntityOf<'workspace'>;
  /** The API key entity; undefined for JWT-authenticated requests. */
  readonly apiKey: EntityOf<'apiKey'> | undefined;
  /** The key's owner, or the token's subject; '' for service keys. */
  readonly userId: string;
  readonly scopes: readonly string[];
}

/**
 * Organisation, then workspace, then key defaults, then the request's own metadata: the closer to
 * the request, the higher the precedence (request metadata always wins).
 */
export function mergedMetadata(
  identity: Identity,
  request: Readonly<Record<string, string>>,
): Record<string, string> {
  const org = identity.organisation.body.value.defaultMetadata;
  const ws = identity.workspace.body.value.defaultMetadata;
  const key = identity.apiKey?.body.value.defaults?.metadata;
  if (isEmpty(org) && isEmpty(ws) && isEmpty(key)) return request as Record<string, string>;
  const merged: Record<string, string> = Object.create(null);
  Object.assign(merged, org, ws, key, request);
  return merged;
}

function isEmpty(record: Readonly<Record<string, string>> | undefined): boolean {
  if (record === undefined) return true;
  for (const _ in record) return false;
  return true;
}
