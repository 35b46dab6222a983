// What a request event records of the caller and the saved entities a request used.
import type { RequestEvent } from '@aigw/proto';
import type { AccessRoute, RequestAccess } from './access-types.js';
import type { ManagedRef } from './managed-provider.js';

export type EventIdentity = Pick<
  RequestEvent,
  'organisationId' | 'workspaceId' | 'apiKeyId' | 'userId' | 'virtualKeyId' | 'configId' | 'configVersion'
>;

export function eventIdentity(access: RequestAccess): EventIdentity {
  const { identity, route } = access;
  const saved = route.kind === 'config' ? route.saved : undefined;
  return {
    organisationId: identity.organisation.id,
    workspaceId: identity.workspace.id,
    apiKeyId: identity.apiKey?.id ?? '',
    userId: identity.userId,
    virtualKeyId: managedRef(route, access)?.virtualKeyId ?? '',
    configId: saved?.id ?? '',
    configVersion: saved?.version ?? 0,
  };
}

/** The managed provider of a request without config (or the one its headers named for a config). */
export function managedRef(route: AccessRoute, access: RequestAccess): ManagedRef | undefined {
  return route.kind === 'managed' ? route.target.ref : access.leaves.fromHeaders?.ref;
}

export function eventProviderRef(
  ref: ManagedRef | undefined,
): { slug: string; providerId: string; integrationId: string } | undefined {
  return ref && { slug: ref.slug, providerId: ref.providerId, integrationId: ref.integrationId };
}
