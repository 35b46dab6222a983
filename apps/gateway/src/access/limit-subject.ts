// What the limits engine matches a control-plane request's policies on (its LimitSubject): who
// calls, through which provider, model, config and virtual key, with which metadata.
import type { LimitSubject } from '../limits/index.js';
import type { RequestAccess } from './access-types.js';
import { managedRef } from './event-identity.js';

/**
 * `provider`: the provider type chosen by the headers. A config request's subject names no provider
 * ('' and no managed provider, virtual key or their limits, whatever the headers say): its targets
 * decide the provider, and each call of a target is admitted for it (auth/target-limits.ts).
 * Built by assignment rather than conditional spreads: this runs for every request, and the plan
 * cache keys on these values, not on the object.
 */
export function limitSubject(access: RequestAccess, providerType: string, model: string): LimitSubject {
  const { identity, route } = access;
  const ref = route.kind === 'config' ? undefined : managedRef(route, access);
  const saved = route.kind === 'config' ? route.saved : undefined;
  const subject: { -readonly [K in keyof LimitSubject]: LimitSubject[K] } = {
    organisationId: identity.organisation.id,
    workspaceId: identity.workspace.id,
    apiKeyId: identity.apiKey?.id ?? '',
    provider: ref?.slug || providerType,
    providerType,
    model,
    configId: saved?.id ?? '',
    virtualKeyId: ref?.virtualKeyId ?? '',
    metadata: access.metadata,
    workspace: identity.workspace,
  };
  if (saved) subject.configSlug = saved.slug;
  if (ref?.virtualKeySlug) subject.virtualKeySlug = ref.virtualKeySlug;
  if (identity.apiKey) subject.apiKey = identity.apiKey;
  if (ref?.provider) subject.providerEntity = ref.provider;
  if (ref?.integration) subject.integration = ref.integration;
  if (ref?.virtualKey) subject.virtualKey = ref.virtualKey;
  const iw = ref?.integrationWorkspace;
  if (iw && ref?.integration) {
    subject.integrationWorkspace = {
      integrationId: ref.integration.id,
      workspaceId: iw.workspaceId,
      rateLimits: iw.rateLimits,
      usageLimits: iw.usageLimits,
    };
  }
  return subject;
}
